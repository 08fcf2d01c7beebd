"""Units as data: datasheets and special-rule registries per game system, validated on load.

Pure in the sense the rules core needs: loading reads this package's YAML files and nothing else
(no network, no database). See :mod:`server.data.schema` for the shape, :mod:`server.data.catalog`
for loading and look-ups, and :mod:`server.data.army` for army list validation.
"""

from server.data.army import ArmyEntry, ArmyError, validate_army
from server.data.catalog import (
    Catalog,
    CatalogError,
    SystemInfo,
    UnknownDatasheet,
    UnknownRule,
    UnknownSystem,
    load_catalog,
    load_catalog_from,
)
from server.data.schema import (
    Base,
    Datasheet,
    ModelCount,
    RuleInfo,
    SpecialRule,
    format_rule,
    parse_rule,
)

__all__ = [
    "ArmyEntry",
    "ArmyError",
    "Base",
    "Catalog",
    "CatalogError",
    "Datasheet",
    "ModelCount",
    "RuleInfo",
    "SpecialRule",
    "SystemInfo",
    "UnknownDatasheet",
    "UnknownRule",
    "UnknownSystem",
    "format_rule",
    "load_catalog",
    "load_catalog_from",
    "parse_rule",
    "validate_army",
]
