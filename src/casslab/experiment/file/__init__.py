"""The experiment file: its typed model (:mod:`.experiment_model`, :mod:`.table_options`,
:mod:`.replication`), the loader that reports every problem at once
(:mod:`.experiment_loader`, :mod:`.file_problems`), the checks across fields and against
the parts that own the rules (:mod:`.file_checks`, :mod:`.topology_checks`,
:mod:`.existing_checks`, :mod:`.hosts_checks`) and the load commands it composes
(:mod:`.load_commands`)."""
