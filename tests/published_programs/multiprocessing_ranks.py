"""Three processes started by ``torch.multiprocessing.spawn`` dump into one
directory at once (the published depyf's ``test_mp.py``).

    python multiprocessing_ranks.py DUMP_DIR
"""
import sys

import torch


@torch.compile(backend="eager")
def f(x):
    return x + 1


def rank_main(rank, world_size, dump_dir):
    import depyf
    with depyf.prepare_debug(dump_dir):
        x = torch.randn(5)
        assert torch.equal(f(x), x + 1)
    print("rank %d of %d ok" % (rank, world_size), flush=True)


if __name__ == "__main__":
    world_size = 3
    torch.multiprocessing.spawn(rank_main, args=(world_size, sys.argv[1]), nprocs=world_size, join=True)
