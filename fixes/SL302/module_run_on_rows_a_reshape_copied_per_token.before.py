import torch
from torch import nn


class JointBlockModulation(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.time_modulation = nn.Sequential(nn.SiLU(), nn.Linear(hidden, 6 * hidden))

    def per_token(self, t_emb, batch, joint_seq_len):
        """One embedding row a sample copied to every joint token and flattened for the
        Linear: the reshape copies it, and the Linear runs on identical rows. Reported, with
        the module-run advice (a Linear cannot read strides)."""
        temb_input = t_emb.unsqueeze(1).expand(batch, joint_seq_len, -1)
        temb6 = self.time_modulation(temb_input.reshape(batch * joint_seq_len, -1))
        return temb6.reshape(batch, joint_seq_len, -1)

    def per_sample(self, t_emb, batch, joint_seq_len):
        """Modulated once a sample, then expanded: the fix, a view."""
        temb6 = self.time_modulation(t_emb)
        return temb6.unsqueeze(1).expand(batch, joint_seq_len, -1)
