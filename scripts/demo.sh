#!/usr/bin/env bash
# make demo: a one-node cluster, a keyspace and table, a row written and read, status, stop.
set -euo pipefail
NAME=casslab-demo
cleanup() { casslab down --name "$NAME" --remove >/dev/null 2>&1 || true; }
trap cleanup EXIT INT TERM
casslab up --name "$NAME" --nodes 1 --heap 512M
casslab cqlsh 1 --name "$NAME" -e "
  CREATE KEYSPACE IF NOT EXISTS demo WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
  CREATE TABLE IF NOT EXISTS demo.readings (sensor text, at timestamp, value double, PRIMARY KEY (sensor, at));
  INSERT INTO demo.readings (sensor, at, value) VALUES ('s1', '2026-11-22 12:00:00+0000', 21.5);
  SELECT * FROM demo.readings WHERE sensor = 's1';"
casslab status --name "$NAME"
casslab down --name "$NAME" --remove
trap - EXIT
