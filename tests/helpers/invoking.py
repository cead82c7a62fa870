"""The command line in this process, as the tests drive it: Click's CliRunner over cli.main."""
from click.testing import CliRunner


def invoke(*args, **options):
    """`encore-sim ARGS` (each argument as its str) run in this process: Click's Result, with
    exit_code, stdout and stderr apart. An exception the command does not turn into an exit code
    propagates, so a failing test shows its traceback; `options` go to CliRunner.invoke (`input`,
    `env`)."""
    from cli import main   # not at the top: a helper module loads nothing until a test calls it
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, **options)
