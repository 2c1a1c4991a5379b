def nonzero_per_chunk(mask, rows, chunks: int):
    m = mask.expand(rows, -1)
    counts = []
    for i in range(chunks):
        counts.append(int((m[i::chunks] != 0).sum()))
    return counts
