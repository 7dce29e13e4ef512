"""Proof that the judge is sound: adversarial probes of every verifier (``audit``), correct work done differently
(``variants``), answers guessable without looking (``leaks``), ``awm validate`` (``validate``) and the
catalog's figures (``stats``).
"""
