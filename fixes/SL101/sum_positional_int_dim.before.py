def heads_over_budget(mask, heads, budget: int):
    per_head = mask.unsqueeze(1).expand(-1, heads, -1)
    return ((per_head != 0).sum(2) > budget).sum()
