"""The numbers of docs/wire-format.md §9, in one place.

Exactly at a limit is accepted and one past it is rejected, everywhere.
"""

MAX_WIRE_BYTES = 16 * 1024 * 1024
MAX_SELECTED_BYTES = 16 * 1024 * 1024
MAX_DICTIONARY_ENTRIES = 65_536
MAX_ENTRY_BYTES = 1024 * 1024
MAX_METADATA_BYTES = 4 * 1024
MAX_DEPTH = 512
MAX_INTEGER_DIGITS = 4_300
#: Digits of a v2 reference index: 65,535 is the largest index (§5.2 step 3).
MAX_REFERENCE_DIGITS = 5

#: Documents smaller than this get no v2 dictionary (docs/wire-format.md §5.1, rule 1).
DICTIONARY_THRESHOLD = 16_384
#: A literal shorter than this, quotes and escapes included, never enters it.
MIN_ENTRY_BYTES = 16
#: ... and it must occur at least this often.
MIN_ENTRY_OCCURRENCES = 2
