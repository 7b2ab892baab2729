"""Optuna's TPESampler on the objective bench/tpe.bench.ts sends on stdin (the peer of our TPE).

Reads {space: [[name, values]...], objective: "branin" | "table", table: {key: value}, trials: N,
seeds: [...], startup: K}; writes {curves: {seed: [best after each evaluated trial]}, duplicates,
version} or {missing: true} when optuna is not installed. Numeric lists (evenly spaced, as the bench
builds them) are searched as integer indices, which is the same discrete space by value; other
lists as categories. A point the objective refuses (absent from the table) is told as FAIL and not
counted, as our search skips it. Settings: TPESampler(seed, n_startup_trials=K), all else default
(univariate, 24 candidates, prior weight 1, magic clip), one trial at a time.
"""
import json
import sys

try:
    import optuna
except ImportError:
    print(json.dumps({"missing": True}))
    sys.exit(0)

optuna.logging.set_verbosity(optuna.logging.WARNING)
req = json.load(sys.stdin)
space = req["space"]
numeric = [all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vs) for _, vs in space]


def branin(x1, x2):
    import math
    a, b, c, r, s, t = 1.0, 5.1 / (4 * math.pi ** 2), 5 / math.pi, 6.0, 10.0, 1 / (8 * math.pi)
    return a * (x2 - b * x1 ** 2 + c * x1 - r) ** 2 + s * (1 - t) * math.cos(x1) + s


OFFSET = {"a": 0.0, "b": 2.0, "c": 5.0}


def value(point):
    if req["objective"] == "branin":
        return -branin(point[0], point[1]) - OFFSET[point[2]]
    return req["table"].get(json.dumps(point, separators=(",", ":")))


curves = {}
duplicates = 0
for seed in req["seeds"]:
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed, n_startup_trials=req["startup"]))
    best = None
    curve = []
    seen = set()
    asked = 0
    while len(curve) < req["trials"] and asked < req["trials"] * 20:
        asked += 1
        trial = study.ask()
        point = []
        for (name, vs), num in zip(space, numeric):
            if num:
                point.append(vs[trial.suggest_int(name, 0, len(vs) - 1)])
            else:
                point.append(trial.suggest_categorical(name, vs))
        v = value(point)
        if v is None:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            continue
        key = json.dumps(point)
        if key in seen:
            duplicates += 1
        seen.add(key)
        study.tell(trial, v)
        best = v if best is None or v > best else best
        curve.append(best)
    curves[str(seed)] = curve
print(json.dumps({"curves": curves, "duplicates": duplicates, "version": optuna.__version__}))
