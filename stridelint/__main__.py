"""`python -m stridelint` is the `stridelint` command."""

from stridelint.cli import main

if __name__ == "__main__":
    main()
