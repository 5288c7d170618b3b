-- @gw/gateway on D1: the record store (D1Store) and the shared state (D1State).
-- Apply with "wrangler d1 migrations apply <DB>" (copy this file into your migrations_dir), or call
-- applyD1Migrations(env.DB) from "@gw/gateway/cloudflare", which runs the same statements.
-- Each record is kept whole as JSON in "record"; the other columns are its indexed fields.
-- Text compares byte-wise (UTF-8), which is the order KvStore and MemoryStore list ids in.

CREATE TABLE IF NOT EXISTS gateway_outbound (
  id TEXT NOT NULL PRIMARY KEY,
  instance TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at NUMERIC NOT NULL,
  revision INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS gateway_outbound_by_time ON gateway_outbound (created_at, id);
CREATE INDEX IF NOT EXISTS gateway_outbound_by_status ON gateway_outbound (status, created_at, id);
CREATE INDEX IF NOT EXISTS gateway_outbound_by_instance_status ON gateway_outbound (instance, status, created_at, id);

CREATE TABLE IF NOT EXISTS gateway_inbound (
  instance TEXT NOT NULL,
  id TEXT NOT NULL,
  received_at NUMERIC NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (instance, id)
);
CREATE INDEX IF NOT EXISTS gateway_inbound_by_time ON gateway_inbound (received_at, instance, id);

CREATE TABLE IF NOT EXISTS gateway_webhook_logs (
  id TEXT NOT NULL PRIMARY KEY,
  status TEXT NOT NULL,
  received_at NUMERIC NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS gateway_webhook_logs_by_time ON gateway_webhook_logs (received_at, id);
CREATE INDEX IF NOT EXISTS gateway_webhook_logs_by_status ON gateway_webhook_logs (status, received_at, id);

CREATE TABLE IF NOT EXISTS gateway_instances (
  connection TEXT NOT NULL,
  instance TEXT NOT NULL,
  updated_at NUMERIC NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (connection, instance)
);
CREATE INDEX IF NOT EXISTS gateway_instances_by_time ON gateway_instances (updated_at, connection, instance);

CREATE TABLE IF NOT EXISTS gateway_state (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  version TEXT NOT NULL,
  expires_at NUMERIC,
  PRIMARY KEY (namespace, key)
);
CREATE INDEX IF NOT EXISTS gateway_state_by_expiry ON gateway_state (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE IF NOT EXISTS gateway_webhook_bodies (
  id TEXT NOT NULL PRIMARY KEY,
  body BLOB NOT NULL,
  created_at NUMERIC NOT NULL
);
