"""The report build: `build.py` chains the stages (`load`, `analyse`, `check`, `draw`,
`write`, `publish`). This package's own import is cheap on purpose: an unchanged
`nox -s site` asks `stamp` whether to build before anything heavy is imported."""
