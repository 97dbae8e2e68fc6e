/**
 * A Spark job's Kafka options map, pasted as it is, in Weir's names.
 *
 * Spark passes every option as a string, matches option names case-insensitively, and takes the
 * Kafka client's own settings with a `kafka.` prefix (`kafka.bootstrap.servers`). Weir's camelCase
 * names stay the one canonical form: this rewrites Spark's spellings into them before the options
 * are validated, and the control plane stores what this returns, so a job page or the API shows
 * each option once, under one name, with secrets where masking finds them (a password inside
 * `kafka.sasl.jaas.config` becomes `saslPassword`).
 *
 * What Spark takes and Weir cannot honour is refused here with the reason and what to do; an
 * option nobody knows is left as it is, for the options schema to refuse as a misspelling.
 */
import { z } from 'zod';
import type { CanonicalOptions } from '../../engine';


type Role = 'source' | 'sink';

/** The Kafka client settings Weir takes, by Spark's `kafka.`-less name. */
const CLIENT_SETTINGS: Record<string, { name: string; roles: readonly Role[] }> = {
  'bootstrap.servers': { name: 'bootstrapServers', roles: ['source', 'sink'] },
  'security.protocol': { name: 'securityProtocol', roles: ['source', 'sink'] },
  'sasl.mechanism': { name: 'saslMechanism', roles: ['source', 'sink'] },
  'client.id': { name: 'clientId', roles: ['source', 'sink'] },
  'request.timeout.ms': { name: 'requestTimeoutMs', roles: ['source', 'sink'] },
  'ssl.truststore.certificates': { name: 'sslCa', roles: ['source', 'sink'] },
  'ssl.keystore.certificate.chain': { name: 'sslCert', roles: ['source', 'sink'] },
  'ssl.keystore.key': { name: 'sslKey', roles: ['source', 'sink'] },
  'group.id': { name: 'groupId', roles: ['source'] },
};

const PEM_ONLY = 'Weir takes certificates and keys as PEM text: convert the store (keytool -exportcert -rfc, or openssl pkcs12) and give sslCa, or sslCert and sslKey';

/** Client settings Spark itself refuses, with Spark's reason; and store files Weir cannot read. */
const REFUSED_CLIENT_SETTINGS: Record<string, string> = {
  'auto.offset.reset': "Kafka option 'auto.offset.reset' is not supported. Instead set the source option 'startingOffsets' to 'earliest' or 'latest' to specify where to start",
  'enable.auto.commit': "Kafka option 'enable.auto.commit' is not supported: the query's offsets live in its checkpoint, never in a consumer group",
  'key.deserializer': "Kafka option 'key.deserializer' is not supported, as keys are always deserialized as byte arrays. Use CAST(key AS STRING) or from_json in the SQL",
  'value.deserializer': "Kafka option 'value.deserializer' is not supported, as values are always deserialized as byte arrays. Use CAST(value AS STRING) or from_json in the SQL",
  'key.serializer': "Kafka option 'key.serializer' is not supported, as keys are always serialized as byte arrays. Cast the key column to STRING or BINARY in the SQL",
  'value.serializer': "Kafka option 'value.serializer' is not supported, as values are always serialized as byte arrays. Cast the value column to STRING or BINARY in the SQL",
  'interceptor.classes': "Kafka option 'interceptor.classes' is not supported",
  'ssl.truststore.location': `a truststore file on the machine is not read: ${PEM_ONLY}`,
  'ssl.keystore.location': `a keystore file on the machine is not read: ${PEM_ONLY}`,
  'ssl.truststore.password': `no store password is needed: ${PEM_ONLY}`,
  'ssl.keystore.password': `no store password is needed: ${PEM_ONLY}`,
  'ssl.key.password': `encrypted keys are not read: ${PEM_ONLY} with an unencrypted key (it is stored as a secret)`,
};

/** Spark source options Weir does not honour, by lower-case name, with the reason and what to do. */
const REFUSED_SOURCE_OPTIONS: Record<string, string> = {
  minpartitions: 'minPartitions splits Kafka partitions into more Spark tasks; Weir reads a batch in one task, so it cannot apply: remove it',
  minoffsetspertrigger: 'minOffsetsPerTrigger (with maxTriggerDelay) makes a trigger wait for enough new offsets; Weir\'s triggers do not defer a batch: remove it, and use a processing-time trigger interval to gather more records per batch',
  maxtriggerdelay: 'maxTriggerDelay goes with minOffsetsPerTrigger, which Weir does not take (its triggers do not defer a batch): remove it, and use a processing-time trigger interval to gather more records per batch',
  endingoffsets: 'endingOffsets ends a batch query; a streaming query reads on: remove it, and use an available-now trigger to stop at what is there when the run starts',
  endingtimestamp: 'endingTimestamp ends a batch query; a streaming query reads on: remove it, and use an available-now trigger to stop at what is there when the run starts',
  endingoffsetsbytimestamp: 'endingOffsetsByTimestamp ends a batch query; a streaming query reads on: remove it, and use an available-now trigger to stop at what is there when the run starts',
};

/**
 * Other spellings Spark users bring with their jobs: the registry settings as ABRiS and
 * Confluent's clients spell them (`basic.auth.*`, and its older `schema.registry.basic.auth.*`),
 * and as Databricks' from_avro options do (`confluent.schema.registry.*`).
 */
const ALIASES: Record<string, string> = {
  'schema.registry.url': 'schemaRegistryUrl',
  'basic.auth.credentials.source': 'basicAuthCredentialsSource',
  'basic.auth.user.info': 'basicAuthUserInfo',
  'schema.registry.basic.auth.credentials.source': 'basicAuthCredentialsSource',
  'schema.registry.basic.auth.user.info': 'basicAuthUserInfo',
  'confluent.schema.registry.basic.auth.credentials.source': 'basicAuthCredentialsSource',
  'confluent.schema.registry.basic.auth.user.info': 'basicAuthUserInfo',
};

const LONG_MAX = 9223372036854775807n;

/** The input kinds of a schema's fields (number, integer, boolean, string…), read once per schema. */
const kindsCache = new WeakMap<z.ZodType, Record<string, string | undefined>>();
function kindsOf(schema: z.ZodType): Record<string, string | undefined> {
  let k = kindsCache.get(schema);
  if (!k) {
    const props = (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { type?: string }> }).properties ?? {};
    k = Object.fromEntries(Object.entries(props).map(([name, p]) => [name, p.type]));
    kindsCache.set(schema, k);
  }
  return k;
}

/** Spark's option values are strings: "10" is 10 and "false" is false where the option is a number or a boolean. */
function typedValue(v: unknown, kind: string | undefined): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if ((kind === 'number' || kind === 'integer') && /^-?\d+$/.test(t)) {
    const b = BigInt(t);
    // Beyond a long: left as text, so the option's own check refuses it.
    return b <= LONG_MAX && b >= -LONG_MAX - 1n ? Number(t) : v;
  }
  if (kind === 'boolean' && /^(true|false)$/i.test(t)) return t.toLowerCase() === 'true';
  return v;
}

/**
 * `kafka.sasl.jaas.config` with a PLAIN or SCRAM login module: its username and password.
 * A string is the problem (never quoting the text: it holds a password).
 */
function parseJaasConfig(text: string): { module: 'plain' | 'scram'; username: string; password: string } | string {
  const m = /^\s*([\w.$]+)\s+(?:required|requisite|sufficient|optional)\b([\s\S]*?);?\s*$/.exec(text);
  if (!m) return 'is not a JAAS login module line (like org.apache.kafka.common.security.plain.PlainLoginModule required username="…" password="…";)';
  const cls = m[1];
  const module = /\.PlainLoginModule$/.test(cls) ? 'plain' : /\.ScramLoginModule$/.test(cls) ? 'scram' : null;
  if (!module) return `names the login module ${cls}; Weir takes SASL PLAIN and SCRAM (PlainLoginModule, ScramLoginModule) with a username and password: use one of those, or saslMechanism, saslUsername and saslPassword`;
  const opts: Record<string, string> = {};
  const re = /([\w.]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;"]+))/g;
  for (let o = re.exec(m[2]); o; o = re.exec(m[2])) opts[o[1]] = o[2] !== undefined ? o[2].replace(/\\(.)/g, '$1') : o[3];
  if (!opts.username || !opts.password) return `has no username="…" and password="…" for the ${module === 'plain' ? 'PlainLoginModule' : 'ScramLoginModule'}: give both`;
  return { module, username: opts.username, password: opts.password };
}

/**
 * Spark's spellings of a Kafka source's or sink's options in Weir's names (see the header).
 * `schema` is the connector's options schema: its field names are the canonical ones.
 */
export function canonicalKafkaOptions(raw: Record<string, unknown>, schema: z.ZodObject, role: Role): CanonicalOptions {
  const canonical = Object.keys(schema.shape);
  const byLower = new Map(canonical.map((k) => [k.toLowerCase(), k]));
  const kinds = kindsOf(schema);
  const out: Record<string, unknown> = {};
  const from: Record<string, string> = {};
  const issues: CanonicalOptions['issues'] = [];
  const put = (key: string, name: string, value: unknown) => {
    if (name in out) {
      issues.push({ path: key, message: `gives ${name}, which ${from[name]} gives already (Spark's name and Weir's for the same option, or a case variant): keep one` });
      return;
    }
    out[name] = typedValue(value, kinds[name]);
    from[name] = key;
  };
  let jaas: { key: string; value: unknown } | undefined;
  let storeType: { key: string; value: unknown }[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (/^kafka\./i.test(key)) {
      const setting = key.slice('kafka.'.length);
      const lower = setting.toLowerCase();
      const known = CLIENT_SETTINGS[lower];
      if (known && known.roles.includes(role)) put(key, known.name, value);
      else if (lower === 'sasl.jaas.config') jaas = { key, value };
      else if (lower === 'ssl.truststore.type' || lower === 'ssl.keystore.type') storeType = [...storeType, { key, value }];
      else if (REFUSED_CLIENT_SETTINGS[lower]) issues.push({ path: key, message: `${REFUSED_CLIENT_SETTINGS[lower]}.` });
      else {
        const taken = Object.entries(CLIENT_SETTINGS).filter(([, s]) => s.roles.includes(role)).map(([k]) => `kafka.${k}`);
        issues.push({ path: key, message: `is a Kafka client setting Weir does not take. The ${role} takes ${[...taken, 'kafka.sasl.jaas.config (PLAIN or SCRAM)'].join(', ')} (or Weir's names for them); remove it.` });
      }
      continue;
    }
    const lower = key.toLowerCase();
    if (role === 'source' && REFUSED_SOURCE_OPTIONS[lower] && !byLower.has(lower)) {
      issues.push({ path: key, message: `${REFUSED_SOURCE_OPTIONS[lower]}.` });
      continue;
    }
    const name = byLower.get(lower) ?? (ALIASES[lower] && byLower.get(ALIASES[lower].toLowerCase()));
    if (name) put(key, name, value);
    // Unknown: kept as written, so the schema refuses it by its own name.
    else out[key] = value;
  }
  for (const t of storeType) {
    if (typeof t.value !== 'string' || t.value.toUpperCase() !== 'PEM') issues.push({ path: t.key, message: `is ${JSON.stringify(t.value)}; ${PEM_ONLY}.` });
  }
  if (jaas) {
    const parsed = typeof jaas.value === 'string' ? parseJaasConfig(jaas.value) : 'must be a string';
    if (typeof parsed === 'string') issues.push({ path: jaas.key, message: parsed });
    else {
      put(jaas.key, 'saslUsername', parsed.username);
      put(jaas.key, 'saslPassword', parsed.password);
      // The PLAIN module says its mechanism; SCRAM leaves SHA-256 or SHA-512 to kafka.sasl.mechanism.
      if (parsed.module === 'plain' && !('saslMechanism' in out)) {
        out.saslMechanism = 'PLAIN';
        from.saslMechanism = jaas.key;
      }
    }
  }
  return { options: out, issues };
}
