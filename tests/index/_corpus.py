"""The small reference corpus the index tests build their indexes from."""

CORPUS = [
    "The old lighthouse keeper climbed the stairs every night to light the lamp.",
    "Every night the keeper climbed the stairs, counting each step aloud.",
    "A storm came from the west and the lamp went out at midnight.",
    "She tied the rope to the railing and lowered the bucket into the well.",
    "When the lamp went out, the ships in the bay could not see the rocks.",
]
