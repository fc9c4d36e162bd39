"""casslab.host: this machine. The JDK and javac (:mod:`.jdk`, :mod:`.javac`), cgroups and
their limits (:mod:`.cgroups`, :mod:`.cgroup_limits`), its CPUs (:mod:`.cpus`) and the load
engine's own cgroup (:mod:`.engine_cgroup`, ``--engine-cpus``).

Below the cluster backends, the network and the load session, which all place processes on
this host; it imports only the ground floor.
"""
