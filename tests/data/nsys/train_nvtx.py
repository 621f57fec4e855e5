"""A CPU training loop annotated with NVTX ranges, for recording an Nsight Systems capture
on a machine without a GPU (tests/data/nsys/cpu-nvtx-2022.4.2/ and cpu-nvtx-2023.4.4/).

Each step is a push/pop range `train_step` holding `forward`, `backward` and `optimizer`;
the batch is made inside a start/end range `data` (NVTX's other kind of range)."""

import nvtx
import torch

torch.manual_seed(0)
torch.set_num_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = torch.nn.CrossEntropyLoss()

for _ in range(5):
    data = nvtx.start_range(message="data", color="green")
    x = torch.randn(128, 256)
    y = torch.randint(0, 10, (128,))
    nvtx.end_range(data)
    with nvtx.annotate("train_step", color="blue"):
        with nvtx.annotate("forward"):
            loss = loss_fn(model(x), y)
        with nvtx.annotate("backward"):
            optimizer.zero_grad()
            loss.backward()
        with nvtx.annotate("optimizer"):
            optimizer.step()
print("done", float(loss.detach()))
