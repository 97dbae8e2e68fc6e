// PostgreSQL (pg): the postgres source, the append, upsert and replace sinks, the static-table reader.
import './postgres-source';
import './postgres-sink';
import './postgres-upsert-sink';
import './postgres-replace-sink';
import './postgres-static-table';
