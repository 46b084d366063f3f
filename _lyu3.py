import math, time, dpaudit
from dpaudit.proofs import prove
from dpaudit.proofs.program_counterexamples import samples_to_see
w = prove("svt-lyu-3").counterexample
n = 2 * samples_to_see(w.extra["probability_first"], w.extra["probability_second"], w.log_ratio, w.bound)
samples = math.ceil(n / 1e5) * 10**5
t = time.time()
r = dpaudit.audit("svt-lyu-3", pair=tuple(tuple(x) for x in w.inputs), samples=samples, seed=1, early_stopping=False, executor="in-process")
print(samples, r.verdict, r.epsilon_lower_bound, r.event, time.time() - t)
