"""Many machines: episodes hosted by Ray actors and stepped in batches (``pip install awm-gym[ray]``).

    import ray
    from awm.dist import EpisodePool
    ray.init()                                    # or ray.init(address="auto") on a cluster
    pool = EpisodePool("online_store", hosts=8)   # 8 actors, each holding many episodes
    eps = pool.reset(seeds=range(64))             # 64 isolated episodes, spread over the actors
    results = pool.step(eps, actions)             # one round trip per actor, not per episode

In one process, plain ``Episode`` calls are ~100x cheaper than an actor round trip: use Ray only when
one machine is not enough.
"""

from awm.dist.pool import EpisodeHandle, EpisodePool

__all__ = ["EpisodeHandle", "EpisodePool"]
