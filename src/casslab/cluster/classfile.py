"""Read a Java class file's fields and supertypes: enough to learn cassandra.yaml's keys
and types, and which classes implement a strategy or a compressor.

Cassandra maps ``cassandra.yaml`` onto the public instance fields of
``org.apache.cassandra.config.Config``; enum-typed settings accept the constants of
their enum. Reading the class file of the very jar we run tells us, for any version,
which keys exist and what each accepts, without a JVM.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_ACC_PUBLIC = 0x0001
_ACC_STATIC = 0x0008
_ACC_INTERFACE = 0x0200
_ACC_ABSTRACT = 0x0400
_ACC_ENUM = 0x4000

# Constant pool tags and the number of bytes after the tag (None = special).
_FIXED_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2}
_FIXED_SIZES.update({17: 4, 18: 4, 19: 2, 20: 2})


@dataclass(frozen=True)
class JavaField:
    """One field of a class: its name, JVM descriptor and access flags."""

    name: str
    descriptor: str
    access: int

    @property
    def is_public_instance(self) -> bool:
        return bool(self.access & _ACC_PUBLIC) and not self.access & _ACC_STATIC

    @property
    def is_enum_constant(self) -> bool:
        return bool(self.access & _ACC_ENUM)


@dataclass(frozen=True)
class JavaClass:
    name: str  # binary name with dots, e.g. org.apache.cassandra.config.Config$DiskAccessMode
    fields: tuple[JavaField, ...]
    super_name: str | None = None  # None for java.lang.Object itself
    interfaces: tuple[str, ...] = ()
    access: int = 0

    @property
    def is_concrete(self) -> bool:
        """A class that can be instantiated: not an interface, not abstract."""
        return not self.access & (_ACC_INTERFACE | _ACC_ABSTRACT)


def parse_class(data: bytes) -> JavaClass:
    """Parse a class file's name, access flags, superclass, interfaces and fields. Raises
    ValueError on a malformed file."""
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise ValueError("not a Java class file (bad magic number)")
    count = struct.unpack_from(">H", data, 8)[0]
    pos = 10
    utf8: dict[int, str] = {}
    class_refs: dict[int, int] = {}
    index = 1
    while index < count:
        tag = data[pos]
        pos += 1
        if tag == 1:
            length = struct.unpack_from(">H", data, pos)[0]
            pos += 2
            utf8[index] = data[pos : pos + length].decode("utf-8", errors="replace")
            pos += length
        elif tag in _FIXED_SIZES:
            if tag == 7:
                class_refs[index] = struct.unpack_from(">H", data, pos)[0]
            pos += _FIXED_SIZES[tag]
        else:
            raise ValueError(f"unknown constant pool tag {tag} at entry {index}")
        index += 2 if tag in (5, 6) else 1
    class_access, this_class, super_class = struct.unpack_from(">HHH", data, pos)
    pos += 6
    interface_count = struct.unpack_from(">H", data, pos)[0]
    interface_refs = struct.unpack_from(f">{interface_count}H", data, pos + 2)
    pos += 2 + 2 * interface_count
    field_count = struct.unpack_from(">H", data, pos)[0]
    pos += 2
    fields: list[JavaField] = []
    for _ in range(field_count):
        access, name_index, descriptor_index, attributes = struct.unpack_from(">HHHH", data, pos)
        pos += 8
        for _ in range(attributes):
            length = struct.unpack_from(">I", data, pos + 2)[0]
            pos += 6 + length
        fields.append(JavaField(utf8[name_index], utf8[descriptor_index], access))

    def class_name(ref: int) -> str:
        return utf8[class_refs[ref]].replace("/", ".")

    return JavaClass(
        name=class_name(this_class),
        fields=tuple(fields),
        super_name=class_name(super_class) if super_class else None,
        interfaces=tuple(class_name(ref) for ref in interface_refs),
        access=class_access,
    )


def descriptor_class(descriptor: str) -> str | None:
    """``Lorg/x/Y$Z;`` -> ``org.x.Y$Z``; primitives and arrays -> None."""
    if descriptor.startswith("L") and descriptor.endswith(";"):
        return descriptor[1:-1].replace("/", ".")
    return None


def class_entry(binary_name: str) -> str:
    """The path of a class inside a jar: ``org.x.Y$Z`` -> ``org/x/Y$Z.class``."""
    return binary_name.replace(".", "/") + ".class"
