import numpy as np, mpmath, itertools
from fractions import Fraction
from dpaudit.mechanisms.programs import *
from dpaudit.mechanisms.density import symbol
from dpaudit.proofs.program_probabilities import output_probability
eps, D = symbol("epsilon"), symbol("Delta")
inst={eps:1, D:1}
rnm2 = NoisyMaxProgram("rnm", 2, instance=inst)
print(output_probability(rnm2,(1,0),0), 1-5*mpmath.exp(-0.5)/8)
def mc(p, q, n=400000):
    out = p.sample(q, n, np.random.default_rng(1))
    return out
at = ThresholdProgram("at", 3, threshold=1, threshold_noise=Noise("laplace", 2*D/eps), query_noise=Noise("laplace", 4*D/eps), cutoff=2, resample_threshold=True, instance=inst)
q=(0,1,2); o=mc(at,q)
tot=0
for pat in itertools.product([0,1,-1],repeat=3):
    P=output_probability(at,q,pat); tot+=P
    f=np.mean(np.all(o==np.array(pat),axis=1))
    if P>0 or f>0: print(pat, float(P), f)
print("total", tot)
l3 = ThresholdProgram("l3", 3, threshold=1, threshold_noise=Noise("laplace", 2*D/eps), query_noise=Noise("laplace", 2*D/eps), cutoff=1, release="value", instance=inst)
o=mc(l3,q)
P=output_probability(l3,q,(0,("<=",Fraction(3,2)),-1)); f=np.mean((o[:,0]==0)&(o[:,1]!=0)&(o[:,1]<=1.5)&(o[:,2]==-1)); print(float(P), f)
l5 = ThresholdProgram("l5", 3, threshold=1, threshold_noise=Noise("laplace", 2*D/eps), cutoff=None, instance=inst)
o=mc(l5,q)
for pat in [(0,0,1),(0,1,1),(1,0,1),(0,0,0)]:
    print(pat, float(output_probability(l5,q,pat)), np.mean(np.all(o==np.array(pat),axis=1)))
ex = NoisyMaxProgram("e", 3, noise=Noise("exponential", 2*D/eps), instance=inst)
o=mc(ex,q)
for w in range(3): print(w, float(output_probability(ex,q,w)), np.mean(o==w))
exv = NoisyMaxProgram("e", 3, noise=Noise("exponential", 2*D/eps), release="value", instance=inst)
o=mc(exv,q); print(float(output_probability(exv,q,("<=",3))), np.mean(o<=3))
