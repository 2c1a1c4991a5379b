
# Facts cross one call a round (a broadcast argument, a summarized return), so they reach
# callees of callees and no further; the screen (screen.py) follows calls as far.
INTERPROCEDURAL_ROUNDS = 3
