"""The two small models of seed report 004, layer for layer (torch needed).

They are reproduced as published, including the ReLU before the MLP's softmax and the
softmax before the loss, so that measurements compare with the seed's.
"""

from __future__ import annotations

import torch
from torch import nn


class SimpleMLP(nn.Module):
    """784-256-128-10 with ReLU after every layer, then softmax (seed 004, §2.1.1)."""

    def __init__(self, shape: tuple[int, int, int] = (1, 28, 28), classes: int = 10) -> None:
        super().__init__()
        features = shape[0] * shape[1] * shape[2]
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(features, 256)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(256, 128)
        self.relu2 = nn.ReLU()
        self.fc3 = nn.Linear(128, classes)
        self.relu3 = nn.ReLU()
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.relu1(self.fc1(self.flatten(x)))
        x = self.relu2(self.fc2(x))
        return self.softmax(self.relu3(self.fc3(x)))


class SimpleCNN(nn.Module):
    """Two 1-channel 5×5 convolutions, each followed by 2×2 max-pool, then FC 16-100-10
    (seed 004, §2.1.2)."""

    def __init__(self, shape: tuple[int, int, int] = (1, 28, 28), classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(shape[0], 1, 5)
        self.pool1 = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(1, 1, 5)
        self.pool2 = nn.MaxPool2d(2, 2)
        side_h = ((shape[1] - 4) // 2 - 4) // 2
        side_w = ((shape[2] - 4) // 2 - 4) // 2
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(side_h * side_w, 100)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(100, classes)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool1(self.conv1(x))
        x = self.pool2(self.conv2(x))
        x = self.relu(self.fc1(self.flatten(x)))
        return self.softmax(self.fc2(x))
