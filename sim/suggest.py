""""Did you mean ...?" for a mistyped name: a strategy, a parameter, a sheet."""
import difflib


def did_you_mean(name, known) -> str:
    """": did you mean X?" (or "X or Y") for the known names closest to `name`, or "" when none is
    close; the text goes after the message that names what is unknown."""
    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=2, cutoff=0.75)
    return f": did you mean {' or '.join(close)}?" if close else ""
