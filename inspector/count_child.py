"""``python -m inspector.count_child``: count one wire's tokens in a process of
its own (see ``inspector.counting``)."""

from inspector.counting import child_main

if __name__ == "__main__":
    child_main()
