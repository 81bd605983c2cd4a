'use strict';
// A client in Node.js, written as docs/serialization.md tells a new user to: kafkajs for Kafka, avsc for Avro, the
// self-contained schemas of topic-schemas/, and the single-object header computed here, not copied from the app.
//
//   node bin/node-client-check.cjs                          the schema files only
//   node bin/node-client-check.cjs --bootstrap HOST:PORT    and a round trip through a running `cognition run`
//
// bin/node-client-check installs kafkajs and avsc, starts the app on a broker of its own and runs both.
const fs = require('fs');
const path = require('path');
const avro = require('avsc');
const { Kafka, Partitioners, logLevel } = require('kafkajs');

const SCHEMAS = path.resolve(__dirname, '..', 'topic-schemas');

// CRC-64-AVRO, the Rabin fingerprint the Avro specification gives, over the Parsing Canonical Form.
const EMPTY = 0xc15d213aa4d7a795n;
const TABLE = Array.from({ length: 256 }, (_, i) => {
  let fp = BigInt(i);
  for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (EMPTY & -(fp & 1n));
  return fp;
});

function fingerprint(type) {
  let fp = EMPTY;
  // avsc's getSchema() with no options is the Parsing Canonical Form.
  for (const b of Buffer.from(JSON.stringify(type.getSchema()), 'utf8')) {
    fp = (fp >> 8n) ^ TABLE[Number((fp ^ BigInt(b)) & 0xffn)];
  }
  return fp;
}

// C3 01, then the fingerprint, least significant byte first.
function header(type) {
  const bytes = Buffer.alloc(10);
  bytes[0] = 0xc3;
  bytes[1] = 0x01;
  bytes.writeBigUInt64LE(fingerprint(type), 2);
  return bytes;
}

function hex(bytes) {
  const b = [...bytes.subarray(0, 10)].map((x) => x.toString(16).toUpperCase().padStart(2, '0'));
  return `${b.slice(0, 2).join(' ')} | ${b.slice(2).join(' ')}`;
}

function encode(type, value) {
  return Buffer.concat([header(type), type.toBuffer(value)]);
}

function decode(type, bytes) {
  if (!bytes.subarray(0, 10).equals(header(type))) {
    throw new Error(`written with another schema: header ${hex(bytes)}, expected ${hex(header(type))}`);
  }
  return type.fromBuffer(bytes.subarray(10)); // throws on bytes left over
}

// A fresh registry per file: no file may lean on a type another one defined.
function load(topic) {
  return avro.Type.forSchema(JSON.parse(fs.readFileSync(path.join(SCHEMAS, `${topic}.avsc`), 'utf8')));
}

function checkFiles() {
  const rows = fs.readFileSync(path.join(SCHEMAS, 'fingerprints.txt'), 'utf8').trim().split('\n').slice(1);
  for (const row of rows) {
    const [topic, , ...listed] = row.split(/ +/);
    const computed = hex(header(load(topic)));
    if (computed !== listed.join(' ')) {
      throw new Error(`${topic}: header computed here ${computed}, fingerprints.txt says ${listed.join(' ')}`);
    }
  }
  console.log(`ok   ${rows.length} schemas parse on their own in avsc; every header computed here is the listed one`);
}

async function roundTrip(bootstrap) {
  const kafka = new Kafka({ clientId: 'node-client-check', brokers: [bootstrap], logLevel: logLevel.WARN });
  const session = `node-${Date.now()}`;
  const requests = load('cognition.requests');
  const packets = load('cognition.packets');
  const letters = load('cognition.dlq');
  // What a client with an outdated schema writes: a header the app does not know.
  const outdated = avro.Type.forSchema({
    type: 'record', name: 'CognitionRequest', namespace: 'io.cognitionstreams.schema',
    fields: [{ name: 'request_id', type: 'string' }],
  });
  const unknown = encode(outdated, { request_id: `${session}-old` });

  const consumer = kafka.consumer({ groupId: session }); // kafkajs reads committed records only by default
  await consumer.connect();
  await consumer.subscribe({ topics: ['cognition.packets', 'cognition.dlq'], fromBeginning: true });
  const answered = new Promise((resolve, reject) => {
    const seen = {};
    consumer.run({
      eachMessage: async ({ topic, message }) => {
        if (topic === 'cognition.packets') {
          const packet = decode(packets, message.value);
          if (packet.session_id === session) seen.packet = packet;
        } else {
          const letter = decode(letters, message.value);
          if (letter.key && letter.key.toString() === `${session}-old`) seen.letter = letter;
        }
        if (seen.packet && seen.letter) resolve(seen);
      },
    }).catch(reject);
    setTimeout(() => reject(new Error(`no packet and letter for ${session} within 180 s`)), 180_000).unref();
  });

  // Named, not left to the default: the Java client's murmur2, so a session's records meet the app's in one partition.
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await producer.send({
    topic: 'cognition.requests',
    messages: [
      // Fields with a default (persona, mtu, target_model, ...) may be left out.
      { key: session, value: encode(requests, {
        request_id: `${session}-r1`, session_id: session, user_prompt: 'Plan the deploy of release 2.4.0',
        timestamp: Date.now(),
      }) },
      { key: `${session}-old`, value: unknown },
    ],
  });
  await producer.disconnect();

  try {
    const { packet, letter } = await answered;
    if (packet.request_id !== `${session}-r1` || packet.payload.user_prompt !== 'Plan the deploy of release 2.4.0') {
      throw new Error(`the packet is not of the request: ${JSON.stringify(packet.payload)}`);
    }
    console.log(`ok   request written here, read by the app: packet ${packet.meta.packet_id} for ${session}, `
      + `${packet.total_tokens} tokens (${packet.encoding})`);
    if (!letter.reason.includes(hex(unknown))) {
      throw new Error(`the dead letter does not name the header ${hex(unknown)}: ${letter.reason}`);
    }
    console.log(`ok   unknown schema dead-lettered as ${letter.error_kind}: ${letter.reason}`);
  } finally {
    await consumer.disconnect();
  }
}

async function main() {
  checkFiles();
  const at = process.argv.indexOf('--bootstrap');
  if (at > 0) await roundTrip(process.argv[at + 1]);
}

main().catch((error) => {
  console.error(`FAIL ${error.message}`);
  process.exit(1);
});
