import time, dpaudit
t=time.time()
r = dpaudit.audit("svt-lyu-4", pair=((0.0,)*10, (1.0,)*9+(-1.0,)), samples=2_500_000, seed=1, executor="in-process", confidence=1-1e-6)
print(r.verdict, r.epsilon_lower_bound, r.event, time.time()-t)
t=time.time()
r = dpaudit.audit("above-threshold", pair=((0.0,)*10, (1.0,)*10), samples=100_000, seed=1, executor="in-process", confidence=1-1e-6)
print(r.verdict, r.epsilon_lower_bound, r.event, time.time()-t)
