"""Datacenters, racks and emulated WAN links between sites (issue 14, in progress): the
pure parts so far, :mod:`.topology` (``--topology dc1:2,dc2:1 --racks 2``) and
:mod:`.links` (``--link 'dc1-dc2=20ms,jitter=2ms,loss=0.1%,rate=100mbit'``). The design
of the emulation is in ``docs/design/wan-links.md``."""
