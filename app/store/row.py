"""The base of every typed row that crosses the seam: a frozen SQLModel model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Self, cast

from sqlmodel import SQLModel
from sqlmodel._compat import SQLModelConfig

_setattr = object.__setattr__
_new = object.__new__
# Per row class: its fields with a default, as (name, default, default_factory).
_DEFAULTS: dict[type[Any], tuple[tuple[str, Any, Any], ...]] = {}


class Row(SQLModel):
    """A typed row: a plain SQLModel model (SQL owns the DDL, so no `table=True`), frozen.
    The API's public models derive from rows (`DevicePublic` from `DeviceRow`), as
    FastAPI's template derives `XPublic` from `XBase`, and validate like any model.

    Rows come from the store's own SQL or from code mypy checks, so they are built
    without validation: `model_construct` here skips pydantic's validator and SQLModel's
    instance set-up too, which makes a row cheaper to build than a frozen dataclass.
    The store's row factory and the bulk builders (segment inputs, drafts) use it."""

    model_config = SQLModelConfig(frozen=True)

    # The signature is BaseModel's; mypy's pydantic plugin types it per model instead.
    @classmethod
    def model_construct(  # type: ignore[override]
        cls, _fields_set: set[str] | None = None, **values: Any
    ) -> Self:
        if len(values) < len(cls.__pydantic_fields__):
            for name, default, factory in cls._defaults():
                if name not in values:
                    values[name] = factory() if factory is not None else default
        row = _new(cls)
        _setattr(row, "__dict__", values)
        _setattr(
            row, "__pydantic_fields_set__", set(values) if _fields_set is None else _fields_set
        )
        _setattr(row, "__pydantic_extra__", None)
        _setattr(row, "__pydantic_private__", None)
        return row

    @classmethod
    def maker(cls, names: Sequence[str]) -> Callable[[Sequence[Any]], Self]:
        """Rows from tuples of values in the order of `names` (a query's columns), built
        as `model_construct` builds them, with what is constant per query done once."""
        missing = [d for d in cls._defaults() if d[0] not in names]
        fields_set = set(names)  # shared: a frozen row never adds to it
        keys = tuple(names)

        def make(values: Sequence[Any]) -> Row:
            data = dict(zip(keys, values, strict=True))
            for name, default, factory in missing:
                data[name] = factory() if factory is not None else default
            row = _new(cls)
            _setattr(row, "__dict__", data)
            _setattr(row, "__pydantic_fields_set__", fields_set)
            _setattr(row, "__pydantic_extra__", None)
            _setattr(row, "__pydantic_private__", None)
            return row

        return cast(Callable[[Sequence[Any]], Self], make)

    @classmethod
    def _defaults(cls) -> tuple[tuple[str, Any, Any], ...]:
        found = _DEFAULTS.get(cls)
        if found is None:
            found = _DEFAULTS[cls] = tuple(
                (name, field.default, field.default_factory)
                for name, field in cls.__pydantic_fields__.items()
                if not field.is_required()
            )
        return found
