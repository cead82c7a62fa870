"""The dataset's Parquet schemas (sim.runs.schema): every column says what it means, and a move's
`available` mask decodes to the dice it names."""
import pytest

from sim.runs.api import play_chunk
from sim.runs.schema import SCHEMAS, TABLES, available_dice, description, markdown


def test_every_column_of_every_table_has_its_meaning():
    assert tuple(SCHEMAS) == TABLES
    undescribed = [f"{t}.{f.name}" for t, s in SCHEMAS.items() for f in s if len(description(f)) < 10]
    assert not undescribed


def test_the_markdown_tables_list_every_column_in_order():
    sections = markdown().split("**")[1:]
    assert sections[::2] == list(TABLES)
    for name, body in zip(sections[::2], sections[1::2]):
        rows = [line for line in body.splitlines() if line.startswith("| `")]
        assert len(rows) == len(SCHEMAS[name])
        for f, row in zip(SCHEMAS[name], rows):
            assert row == f"| `{f.name}` | {f.type}{' (nullable)' if f.nullable else ''} | {description(f)} |"


def test_a_played_chunk_s_tables_are_of_these_schemas():
    chunk = play_chunk(5, 0, 3, ["greedy"], players=2, log_turns=True)
    for name in ("games", "players", "turns"):     # the trace is written by a pass of its own (test_trace)
        table = chunk.to_arrow(name)
        assert table.schema.names == SCHEMAS[name].names
        assert [f.type for f in table.schema] == [f.type for f in SCHEMAS[name]]


@pytest.mark.parametrize("mask, dice", [(0, ([], [])), (0b000001, ([0], [])), (0b101001, ([0], [0, 2])),
                                        (63, ([0, 1, 2], [0, 1, 2])), (0b110110, ([1, 2], [1, 2]))])
def test_available_names_the_dice_of_its_bits(mask, dice):
    assert available_dice(mask) == {"colour": dice[0], "number": dice[1]}


@pytest.mark.parametrize("mask", [-1, 64, 1000])
def test_available_out_of_range_is_refused(mask):
    with pytest.raises(ValueError, match="available must be a 6-bit mask 0..63"):
        available_dice(mask)
