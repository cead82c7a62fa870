"""Command-line interface of encore-sim (the `encore-sim` console script)."""

import click


@click.group()
@click.version_option(package_name="encore-sim")
def main() -> None:
    """Monte Carlo simulator of the dice game Encore! (Noch mal!)."""


if __name__ == "__main__":
    main()
