def busiest_row(selection, batch):
    sel = selection.expand(batch, -1)
    s = sel
    return (s > 0).sum(dim=-1).max()
