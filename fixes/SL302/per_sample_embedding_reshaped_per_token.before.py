import torch


class FilmHead(torch.nn.Module):
    """The per-sample conditioning copied to every token by a reshape whose sizes are spelled
    otherwise than the expand's: the token dim is stride 0 between two dims that are not, so
    any two-dim reshape merges it with one of them and copies batch x tokens x width."""

    def __init__(self, width: int):
        super().__init__()
        self.width = width
        self.modulation = torch.nn.Sequential(torch.nn.SiLU(), torch.nn.Linear(width, 2 * width))

    def forward(self, hidden, cond):
        batch = hidden.shape[0]
        per_token = cond.unsqueeze(1).expand(batch, hidden.shape[1], -1)
        shift, scale = self.modulation(per_token.reshape(-1, self.width)).chunk(2, dim=-1)
        return hidden * (1 + scale.view_as(hidden)) + shift.view_as(hidden)

    def forward_sharded(self, hidden, cond, shards: int):
        """Rebound on one branch only: where the load reads the expand, the reshape copies."""
        per_token = cond.unsqueeze(1).expand(hidden.shape[0], hidden.shape[1], -1)
        if shards > 1:
            per_token, _ = per_token.chunk(2, dim=1)
        shift, scale = self.modulation(per_token.reshape(-1, self.width)).chunk(2, dim=-1)
        return shift, scale
