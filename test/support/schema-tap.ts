/**
 * Schema conformance tap for tests: validates every JSON-RPC message that crosses a connection
 * against the official ACP JSON schema of one protocol version, read straight from the SDK
 * package and run WHOLE by Ajv (deliberately independent of `src/protocol/validation`, whose
 * rewritten schema it thereby cross-checks).
 *
 * Each message is checked twice:
 * 1. against the ROOT schema's message family of its sender (`Agent` or `Client`, or
 *    `ProtocolLevel` for `$/cancel_request`): envelope, error objects, id types;
 * 2. against its method's own def (found by `x-method`): the root accepts any params through the
 *    `Ext*` catch-all, so this is what checks a known method's body. Responses are matched to the
 *    method of the request with that id, sent the other way (one id -> method map per direction).
 *
 * Usage with a `JsonRpcPeer`: `new JsonRpcPeer(transport, { tap: tap.agentSide })` on the agent's
 * peer (or `tap.clientSide` on the client's). Tap ONE side of a connection, or each message is
 * checked twice. Then `tap.assertAllValid()`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';

export type Sender = 'agent' | 'client';

export interface TapFailure {
  /** Who sent the message. */
  from: Sender;
  /** What was checked: the message family of the root schema, or a method's params/result def. */
  against: string;
  message: unknown;
  /** Ajv's own errors (all of them) and their text. */
  errors: ErrorObject[];
  text: string;
}

export interface SchemaTap {
  readonly version: 1 | 2;
  /** Check a message the agent sent (to the client). */
  fromAgent(message: unknown): void;
  /** Check a message the client sent (to the agent). */
  fromClient(message: unknown): void;
  /** `JsonRpcPeer` `tap` option for the agent's peer: sent = from agent, received = from client. */
  readonly agentSide: { sent(message: object): void; received(message: unknown): void };
  /** `JsonRpcPeer` `tap` option for the client's peer. */
  readonly clientSide: { sent(message: object): void; received(message: unknown): void };
  readonly failures: readonly TapFailure[];
  /** Messages checked so far. */
  readonly checked: number;
  /** Methods the schema does not define (`_` extensions and others), as seen; never failures. */
  readonly unknownMethods: ReadonlySet<string>;
  /** Methods the schema defines, as seen in requests and notifications of either side. */
  readonly knownMethods: ReadonlySet<string>;
  /** Throws an Error listing every failure (message + Ajv errors) if there is any. */
  assertAllValid(): void;
}

interface MethodInfo {
  side: 'agent' | 'client' | 'protocol';
  params?: string;
  result?: string;
  /** A method that is also a notification with its own side (mcp/message): that form's side and params. */
  notification?: { side: 'agent' | 'client' | 'protocol'; params: string };
}

interface Compiled {
  ajv: Ajv2020;
  id: string;
  families: Record<'Agent' | 'Client' | 'ProtocolLevel', ValidateFunction>;
  methods: Map<string, MethodInfo>;
  defs: Map<string, ValidateFunction>;
}

const compiled = new Map<string, Compiled>();

/** `unstable`: `schema.unstable.json` (the stable schema plus the unstable methods and kinds). */
function load(version: 1 | 2, flavor: 'stable' | 'unstable' = 'stable'): Compiled {
  const hit = compiled.get(`${version}:${flavor}`);
  if (hit) return hit;
  const name = flavor === 'stable' ? 'schema.json' : 'schema.unstable.json';
  const file = fileURLToPath(
    new URL(`../../node_modules/@agentclientprotocol/sdk/schema/v${version}/${name}`, import.meta.url),
  );
  const schema = JSON.parse(readFileSync(file, 'utf8')) as {
    anyOf: { title: string }[];
    $defs: Record<string, Record<string, unknown>>;
  };
  const id = `https://schema-tap.invalid/v${version}-${flavor}.json`;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false });
  ajv.addSchema({ ...schema, $id: id });
  const family = (title: string): ValidateFunction => {
    const i = schema.anyOf.findIndex((b) => b.title === title);
    if (i < 0) throw new Error(`v${version} root schema has no ${title} family`);
    const fn = ajv.getSchema(`${id}#/anyOf/${i}`);
    if (!fn) throw new Error(`cannot compile ${title}`);
    return fn;
  };
  const methods = new Map<string, MethodInfo>();
  const notes = new Map<string, { side: MethodInfo['side']; params: string }>();
  for (const [name, def] of Object.entries(schema.$defs)) {
    const method = def['x-method'];
    // proxy-chain methods (x-side proxy) go between a conductor and its components: either way
    const side = def['x-side'] === 'proxy' ? 'protocol' : def['x-side'];
    if (typeof method !== 'string' || (side !== 'agent' && side !== 'client' && side !== 'protocol')) continue;
    if (name.endsWith('Notification')) {
      notes.set(method, { side, params: name });
      continue;
    }
    const info = methods.get(method) ?? { side };
    if (name.endsWith('Response')) info.result = name;
    else Object.assign(info, { side, params: name });
    methods.set(method, info);
  }
  for (const [method, note] of notes) {
    const info = methods.get(method);
    if (info) info.notification = note;
    else methods.set(method, { side: note.side, params: note.params });
  }
  const c: Compiled = {
    ajv,
    id,
    families: { Agent: family('Agent'), Client: family('Client'), ProtocolLevel: family('ProtocolLevel') },
    methods,
    defs: new Map(),
  };
  compiled.set(`${version}:${flavor}`, c);
  return c;
}

function defValidator(c: Compiled, name: string): ValidateFunction {
  let fn = c.defs.get(name);
  if (!fn) {
    fn = c.ajv.getSchema(`${c.id}#/$defs/${name}`);
    if (!fn) throw new Error(`cannot compile $defs/${name}`);
    c.defs.set(name, fn);
  }
  return fn;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The Ajv instance (and the `$id` its root schema has in it) that the taps of `version`'s stable
 * schema compile into, for a test that validates against the same schema by def name
 * (`${id}#/$defs/<Name>`): a second instance would compile the same defs again (~1.2 s of CPU for
 * all defs of v1 and v2).
 */
export function stableSchemaAjv(version: 1 | 2): { ajv: Ajv2020; id: string } {
  const c = load(version, 'stable');
  return { ajv: c.ajv, id: c.id };
}

/** A tap validating ACP `version` messages; see the module doc. */
export function createSchemaTap(version: 1 | 2, flavor: 'stable' | 'unstable' = 'stable'): SchemaTap {
  const c = load(version, flavor);
  const failures: TapFailure[] = [];
  const unknownMethods = new Set<string>();
  const knownMethods = new Set<string>();
  // Requests each side sent, by id, so the other side's response can be typed by method.
  const pending: Record<Sender, Map<string, string>> = { agent: new Map(), client: new Map() };
  let checked = 0;

  const fail = (
    from: Sender,
    against: string,
    message: unknown,
    errors: ErrorObject[] | null | undefined,
    text?: string,
  ): void => {
    const errs = errors ?? [];
    failures.push({
      from,
      against,
      message,
      errors: errs,
      text: text ?? c.ajv.errorsText(errs, { dataVar: 'message' }),
    });
  };

  const check = (from: Sender, raw: unknown): void => {
    checked++;
    let message = raw;
    if (typeof raw === 'string') {
      try {
        message = JSON.parse(raw);
      } catch {
        fail(from, 'JSON', raw, [], 'not JSON');
        return;
      }
    }
    const family = from === 'agent' ? 'Agent' : 'Client';
    const isCancelRequest = isObj(message) && message.method === '$/cancel_request';
    const root = isCancelRequest ? c.families.ProtocolLevel : c.families[family];
    if (!root(message)) {
      fail(from, isCancelRequest ? 'ProtocolLevel' : family, message, root.errors);
      return;
    }
    if (!isObj(message)) return;
    const { id, method } = message;
    if (typeof method === 'string') {
      const info = c.methods.get(method);
      if ('id' in message) pending[from].set(JSON.stringify(id), method);
      if (!info) {
        unknownMethods.add(method);
        return;
      }
      knownMethods.add(method);
      // a notification of a method that is also a request (mcp/message) has its own side and params
      const form = !('id' in message) && info.notification ? info.notification : info;
      // `x-side` names the side that HANDLES the method: the agent handles what the client sends.
      const handler = from === 'agent' ? 'client' : 'agent';
      if (form.side !== 'protocol' && form.side !== handler) {
        fail(
          from,
          `${method} side`,
          message,
          [],
          `${method} is handled by the ${form.side}, so the ${handler} cannot receive it`,
        );
        return;
      }
      if (form.params) {
        const fn = defValidator(c, form.params);
        if (!fn(message.params)) fail(from, `${method} params (${form.params})`, message, fn.errors);
      }
      return;
    }
    if ('result' in message) {
      const other: Sender = from === 'agent' ? 'client' : 'agent';
      const key = JSON.stringify(id);
      const requested = pending[other].get(key);
      pending[other].delete(key);
      if (requested === undefined) {
        fail(from, 'response id', message, [], `response to id ${key}, which the ${other} never requested`);
        return;
      }
      const result = c.methods.get(requested)?.result;
      if (!result) return;
      const fn = defValidator(c, result);
      if (!fn(message.result)) fail(from, `${requested} result (${result})`, message, fn.errors);
    } else if ('error' in message && id !== null && id !== undefined) {
      pending[from === 'agent' ? 'client' : 'agent'].delete(JSON.stringify(id));
    }
  };

  const fromAgent = (m: unknown): void => check('agent', m);
  const fromClient = (m: unknown): void => check('client', m);
  return {
    version,
    fromAgent,
    fromClient,
    agentSide: { sent: fromAgent, received: fromClient },
    clientSide: { sent: fromClient, received: fromAgent },
    failures,
    get checked() {
      return checked;
    },
    unknownMethods,
    knownMethods,
    assertAllValid() {
      if (failures.length === 0) return;
      const lines = failures.map(
        (f, i) =>
          `${i + 1}. from ${f.from}, against ${f.against}: ${f.text}\n   message: ${JSON.stringify(f.message).slice(0, 600)}`,
      );
      throw new Error(
        `ACP v${version} schema tap: ${failures.length} of ${checked} messages invalid\n${lines.join('\n')}`,
      );
    },
  };
}
