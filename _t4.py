import time
from tests.proofs.test_alignment_mutants import MUTANTS
from dpaudit.proofs import prove
for m in MUTANTS:
    if m.name in ['at-claims-nine-tenths-k4', 'at-missing-cutoff', 'lyu1-claims-three-quarters', 'lyu1-missing-cutoff', 'lyu2-query-not-scaled-by-c', 'lyu2-threshold-not-scaled-by-c']:
        t=time.time(); r = prove(m.mechanism(), time_budget=20)
        print(m.name, r.verdict, round(time.time()-t,1), r.reason[:300])
