/**
 * A real OTLP/HTTP trace endpoint for the tests: it answers `POST <path>` as a collector does, keeps
 * each raw body (for "appears in no exported byte") and decodes both encodings of
 * `ExportTraceServiceRequest` — binary protobuf (`application/x-protobuf`, decoded here from the
 * field numbers of opentelemetry-proto's trace.proto, common.proto and resource.proto) and OTLP/JSON
 * (`application/json`: ids in hex, 64-bit integers as strings) — into one span shape.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AttributeValue = string | number | boolean | null;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty when the span is a root. */
  readonly parentSpanId: string;
  readonly traceState: string;
  readonly name: string;
  /** 1 internal, 2 server, 3 client (the proto's SpanKind). */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly links: readonly { traceId: string; spanId: string }[];
  readonly events: readonly { name: string; attributes: Record<string, AttributeValue> }[];
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly resource: Readonly<Record<string, AttributeValue>>;
}

export interface ReceivedExport {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly exports: readonly ReceivedExport[];
  /** Every span of every export so far, decoded. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

// --- protobuf wire format -------------------------------------------------------------------

interface Field {
  readonly number: number;
  readonly wireType: number;
  /** Varint (as bigint), or the bytes of a length-delimited / fixed field. */
  readonly varint?: bigint;
  readonly bytes?: Buffer;
}

function fieldsOf(buffer: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (at >= buffer.length) throw new Error('truncated varint');
      const byte = buffer[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const tag = Number(varint());
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (wireType === 0) fields.push({ number, wireType, varint: varint() });
    else if (wireType === 1)
      fields.push({ number, wireType, bytes: buffer.subarray(at, (at += 8)) });
    else if (wireType === 5)
      fields.push({ number, wireType, bytes: buffer.subarray(at, (at += 4)) });
    else if (wireType === 2) {
      const length = Number(varint());
      fields.push({ number, wireType, bytes: buffer.subarray(at, (at += length)) });
    } else throw new Error(`unsupported wire type ${wireType}`);
  }
  return fields;
}

const all = (fields: Field[], number: number) => fields.filter((f) => f.number === number);
const one = (fields: Field[], number: number) => fields.find((f) => f.number === number);
const text = (field: Field | undefined) => field?.bytes?.toString('utf8') ?? '';
const hex = (field: Field | undefined) => field?.bytes?.toString('hex') ?? '';

/** common.proto AnyValue: string 1, bool 2, int64 3, double 4 (arrays and maps are not used). */
function protoValue(buffer: Buffer | undefined): AttributeValue {
  if (!buffer) return null;
  const [field] = fieldsOf(buffer);
  if (!field) return null;
  if (field.number === 1) return text(field);
  if (field.number === 2) return field.varint === 1n;
  if (field.number === 3) return Number(BigInt.asIntN(64, field.varint!));
  if (field.number === 4) return field.bytes!.readDoubleLE(0);
  return null;
}

/** repeated KeyValue (key 1, value 2). */
const protoAttributes = (fields: Field[]): Record<string, AttributeValue> =>
  Object.fromEntries(
    fields.map((kv) => {
      const inner = fieldsOf(kv.bytes!);
      return [text(one(inner, 1)), protoValue(one(inner, 2)?.bytes)];
    }),
  );

function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  // ExportTraceServiceRequest.resource_spans 1 → ResourceSpans { resource 1, scope_spans 2 }
  for (const resourceSpans of all(fieldsOf(body), 1)) {
    const rs = fieldsOf(resourceSpans.bytes!);
    const resourceField = one(rs, 1);
    const resource = resourceField ? protoAttributes(all(fieldsOf(resourceField.bytes!), 1)) : {};
    // ScopeSpans { scope 1, spans 2 }
    for (const scopeSpans of all(rs, 2)) {
      for (const spanField of all(fieldsOf(scopeSpans.bytes!), 2)) {
        const s = fieldsOf(spanField.bytes!);
        const status = one(s, 15);
        spans.push({
          traceId: hex(one(s, 1)),
          spanId: hex(one(s, 2)),
          traceState: text(one(s, 3)),
          parentSpanId: hex(one(s, 4)),
          name: text(one(s, 5)),
          kind: Number(one(s, 6)?.varint ?? 0n),
          attributes: protoAttributes(all(s, 9)),
          // Link { trace_id 1, span_id 2 }
          links: all(s, 13).map((link) => {
            const l = fieldsOf(link.bytes!);
            return { traceId: hex(one(l, 1)), spanId: hex(one(l, 2)) };
          }),
          // Event { time_unix_nano 1, name 2, attributes 3 }
          events: all(s, 11).map((event) => {
            const e = fieldsOf(event.bytes!);
            return { name: text(one(e, 2)), attributes: protoAttributes(all(e, 3)) };
          }),
          // Status { message 2, code 3 }
          statusCode: status ? Number(one(fieldsOf(status.bytes!), 3)?.varint ?? 0n) : 0,
          resource,
        });
      }
    }
  }
  return spans;
}

// --- OTLP/JSON ----------------------------------------------------------------------------

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
}

const jsonValue = (value: JsonAnyValue | undefined): AttributeValue => {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return null;
};

const jsonAttributes = (list: { key: string; value?: JsonAnyValue }[] | undefined) =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, jsonValue(kv.value)]));

function decodeJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8'));
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.push({
          traceId: s.traceId ?? '',
          spanId: s.spanId ?? '',
          traceState: s.traceState ?? '',
          parentSpanId: s.parentSpanId ?? '',
          name: s.name ?? '',
          kind: s.kind ?? 0,
          attributes: jsonAttributes(s.attributes),
          links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({
            traceId: l.traceId,
            spanId: l.spanId,
          })),
          events: (s.events ?? []).map(
            (e: { name: string; attributes?: { key: string; value?: JsonAnyValue }[] }) => ({
              name: e.name,
              attributes: jsonAttributes(e.attributes),
            }),
          ),
          statusCode: s.status?.code ?? 0,
          resource,
        });
      }
    }
  }
  return spans;
}

// --- the endpoint -------------------------------------------------------------------------

const bodyOf = async (request: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  const server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    const contentType = request.headers['content-type'] ?? '';
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    exports.push({ path: request.url ?? '', contentType, body });
    // An empty ExportTraceServiceResponse: full success, in the request's encoding.
    if (contentType.includes('json')) {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } else {
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans: () =>
      exports.flatMap((e) =>
        e.contentType.includes('json') ? decodeJson(e.body) : decodeProtobuf(e.body),
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
