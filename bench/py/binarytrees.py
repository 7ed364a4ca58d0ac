import sys


class Node:
    __slots__ = ("left", "right")

    def __init__(self, left, right):
        self.left = left
        self.right = right


def bottom_up(depth):
    if depth > 0:
        return Node(bottom_up(depth - 1), bottom_up(depth - 1))
    return Node(None, None)


def check(t):
    if t.left is None:
        return 1
    return 1 + check(t.left) + check(t.right)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    min_depth = 4
    max_depth = max(min_depth + 2, n)
    stretch = max_depth + 1
    print("stretch tree of depth", stretch, "check:", check(bottom_up(stretch)))
    long_lived = bottom_up(max_depth)
    d = min_depth
    while d <= max_depth:
        iters = 1 << (max_depth - d + min_depth)
        chk = 0
        for _ in range(iters):
            chk += check(bottom_up(d))
        print(iters, "trees of depth", d, "check:", chk)
        d += 2
    print("long lived tree of depth", max_depth, "check:", check(long_lived))


main()
