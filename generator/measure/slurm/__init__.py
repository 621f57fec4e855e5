"""`measure --executor slurm`: the matrix as one submitit job array per partition, each task
running one configuration with the same runner, re-attachable by a job manifest."""
