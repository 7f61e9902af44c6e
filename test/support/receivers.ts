/**
 * Real local receivers for the delivery channels, on 127.0.0.1 port 0:
 *   - a webhook receiver (HTTP) that records requests, can fail the first N, hang, or go down
 *     and come back up on the same port;
 *   - an SMTP server (`smtp-server`, no TLS; no auth unless asked) that collects messages, and
 *     can refuse recipients;
 *   - a web-push endpoint (HTTP) that records POSTs, verifies the VAPID JWT, and decrypts the
 *     aes128gcm payloads of subscriptions made with `createPushSubscriptionKeys`;
 *   - a Telegram Bot API stand-in recording `/bot<token>/sendMessage` calls and serving
 *     `getUpdates` with the messages a test has chats send to the bot.
 */
import {
  createECDH,
  createPublicKey,
  randomBytes,
  verify as verifySignature,
  type ECDH,
} from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import webpush from 'web-push';

/** A received HTTP request. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

/** How to answer a request: a status and a JSON (or string) body, or hang (never answer). */
export type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang';

interface HttpReceiver {
  url: string;
  port: number;
  /** Every request received (failed ones included), in order. */
  requests: ReceivedRequest[];
  /** Stops listening and drops every connection; `up()` listens again on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

async function readBody(request: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, answer: Exclude<Answer, 'hang'>) {
  const body =
    answer.body === undefined
      ? ''
      : typeof answer.body === 'string'
        ? answer.body
        : JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'Content-Type': typeof answer.body === 'string' ? 'text/plain' : 'application/json',
    ...answer.headers,
  });
  res.end(body);
}

/** An HTTP server on 127.0.0.1 answering each request with `respond`; it can go down and up. */
async function startHttpReceiver(
  respond: (request: ReceivedRequest, index: number) => Answer | Promise<Answer>,
): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  let server: Server | null = null;
  let port = 0;

  const listen = async () => {
    const s = createServer((req, res) => {
      void (async () => {
        const request: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: await readBody(req),
          at: Date.now(),
        };
        const index = requests.push(request) - 1;
        const answer = await respond(request, index);
        if (answer === 'hang') {
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        }
        send(res, answer);
      })().catch(() => {
        if (!res.headersSent) send(res, { status: 500, body: 'receiver failed' });
      });
    });
    s.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const down = async () => {
    const s = server;
    server = null;
    if (!s) return;
    const closed = new Promise<void>((resolve) => s.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  await listen();
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    port,
    requests,
    down,
    up: listen,
    close: down,
  };
}

// ---------------------------------------------------------------------------------------------
// Webhook

export interface WebhookReceiverOptions {
  /** Answer a subscription's verification request with its challenge, as a willing receiver does. */
  answerChallenges?: boolean;
  /** Answer 503 to the first N requests. Default 0. */
  failFirst?: number;
  /** Overrides the answer (after `failFirst`). Default 204. */
  respond?: (request: ReceivedRequest, index: number) => Answer | Promise<Answer>;
}

export interface WebhookReceiver extends HttpReceiver {
  /** Requests answered 2xx, per notice id (X-Batchbook-Notice-Id). */
  accepted: Map<string, number>;
}

/** The challenge of a subscription's verification request, or null for a notice. */
export function challengeOf(request: ReceivedRequest): string | null {
  const body = JSON.parse(request.body.toString('utf8')) as { type?: string; challenge?: string };
  return body.type === 'subscription_verification' ? (body.challenge ?? null) : null;
}

export async function startWebhookReceiver(
  options: WebhookReceiverOptions = {},
): Promise<WebhookReceiver> {
  const accepted = new Map<string, number>();
  const failFirst = options.failFirst ?? 0;
  const receiver = await startHttpReceiver(async (request, index) => {
    if (index < failFirst) return { status: 503, body: 'not yet' };
    const challenge = options.answerChallenges ? challengeOf(request) : null;
    if (challenge !== null) return { status: 200, body: { challenge } };
    const answer = options.respond ? await options.respond(request, index) : { status: 204 };
    if (answer !== 'hang' && answer.status >= 200 && answer.status < 300) {
      const id = String(request.headers['x-batchbook-notice-id']);
      accepted.set(id, (accepted.get(id) ?? 0) + 1);
    }
    return answer;
  });
  return Object.assign(receiver, { accepted });
}

// ---------------------------------------------------------------------------------------------
// SMTP

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message (headers and body) as received. */
  raw: string;
  headers: Map<string, string>;
  text: string;
}

export interface SmtpReceiver {
  /** smtp://127.0.0.1:<port> */
  url: string;
  mails: ReceivedMail[];
  /** Every AUTH the server received (it advertises AUTH only when `auth` was given). */
  logins: { username: string; password: string }[];
  close(): Promise<void>;
}

export interface SmtpReceiverOptions {
  /** Advertise AUTH over the unencrypted connection and take these credentials. */
  auth?: { username: string; password: string };
  /** The answer to RCPT TO of `address` when it is refused (e.g. 550 or 451), or null. */
  refuseRecipient?: (address: string) => { code: number; message: string } | null;
}

/** Unfolds a raw message's header block into a lowercase-keyed map and the body. */
export function parseMail(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/** A plain-text body as nodemailer writes it (7bit or quoted-printable). */
function decodeText(body: string, encoding: string | undefined): string {
  if (encoding?.toLowerCase() !== 'quoted-printable') return body;
  return Buffer.from(
    body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
}

export async function startSmtpReceiver(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const logins: SmtpReceiver['logins'] = [];
  const { auth, refuseRecipient } = options;
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: auth !== undefined,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(credentials, _session, callback) {
      const login = { username: credentials.username ?? '', password: credentials.password ?? '' };
      logins.push(login);
      if (login.username === auth?.username && login.password === auth.password) {
        return callback(null, { user: login.username });
      }
      callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      const refusal = refuseRecipient?.(address.address);
      if (!refusal) return callback();
      callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      readBody(stream)
        .then((data) => {
          const raw = data.toString('utf8');
          const { headers, body } = parseMail(raw);
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            headers,
            text: decodeText(body, headers.get('content-transfer-encoding')).replace(/\r\n/g, '\n'),
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    logins,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---------------------------------------------------------------------------------------------
// Web push

interface Ece {
  decrypt(
    buffer: Buffer,
    params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: Buffer },
  ): Buffer;
}
const ece = createRequire(import.meta.url)('http_ece') as Ece;

/** A browser's side of a push subscription: what it gives the server, and what decrypts. */
export interface PushSubscriptionKeys {
  /** As PushSubscription.toJSON().keys: base64url P-256 public key and 16-byte auth secret. */
  keys: { p256dh: string; auth: string };
  ecdh: ECDH;
  authSecret: Buffer;
}

export function createPushSubscriptionKeys(): PushSubscriptionKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const authSecret = randomBytes(16);
  return {
    keys: {
      p256dh: ecdh.getPublicKey().toString('base64url'),
      auth: authSecret.toString('base64url'),
    },
    ecdh,
    authSecret,
  };
}

/** The plaintext of an aes128gcm-encrypted push message for the subscription `keys`. */
export function decryptPush(body: Buffer, keys: PushSubscriptionKeys): string {
  return ece
    .decrypt(body, { version: 'aes128gcm', privateKey: keys.ecdh, authSecret: keys.authSecret })
    .toString('utf8');
}

/** A fresh VAPID key pair, base64url (as `web-push generate-vapid-keys` prints). */
export function createVapidKeys(): { publicKey: string; privateKey: string } {
  return webpush.generateVAPIDKeys();
}

/**
 * Checks a push request's `Authorization: vapid t=<JWT>, k=<public key>`: the ES256 signature
 * under `k`, the audience (the endpoint's origin) and the expiry. Returns the JWT's claims.
 */
export function verifyVapid(
  headers: IncomingHttpHeaders,
  origin: string,
): { publicKey: string; claims: { aud: string; exp: number; sub: string } } {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(headers.authorization ?? '');
  if (!match) throw new Error(`no VAPID authorization: ${headers.authorization}`);
  const [, token, k] = match as unknown as [string, string, string];
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const raw = Buffer.from(k, 'base64url');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  const valid = verifySignature(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!valid) throw new Error('VAPID signature does not verify');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
    aud: string;
    exp: number;
    sub: string;
  };
  if (claims.aud !== origin) throw new Error(`VAPID audience ${claims.aud}, expected ${origin}`);
  if (claims.exp * 1000 < Date.now()) throw new Error('VAPID token expired');
  return { publicKey: k, claims };
}

export interface PushReceiver extends HttpReceiver {
  /** The endpoint URL of a subscription named `name` (any path works). */
  endpoint(name: string): string;
}

export interface PushReceiverOptions {
  /** The answer per request; default 201 Created, as push services answer. */
  respond?: (request: ReceivedRequest, index: number) => Answer | Promise<Answer>;
}

export async function startPushReceiver(options: PushReceiverOptions = {}): Promise<PushReceiver> {
  const receiver = await startHttpReceiver(
    (request, index) => options.respond?.(request, index) ?? { status: 201 },
  );
  return Object.assign(receiver, {
    endpoint: (name: string) => `${receiver.url}/push/${encodeURIComponent(name)}`,
  });
}

// ---------------------------------------------------------------------------------------------
// Telegram

export interface TelegramCall {
  token: string;
  method: string;
  body: { chat_id: string; text: string } & Record<string, unknown>;
}

export interface TelegramReceiver extends HttpReceiver {
  /** The Bot API base URL to configure (TELEGRAM_API_URL). */
  apiUrl: string;
  calls: TelegramCall[];
  /** A message from `chat` to the bot, in the next `getUpdates` (until an offset passes it). */
  send(chat: { id: number; username?: string; type?: string }, text: string): void;
}

export interface TelegramReceiverOptions {
  /** Overrides the answer; default `{ok: true, result: <a Message>}`. */
  respond?: (call: TelegramCall, index: number) => Answer | Promise<Answer> | undefined;
}

export async function startTelegramReceiver(
  options: TelegramReceiverOptions = {},
): Promise<TelegramReceiver> {
  const calls: TelegramCall[] = [];
  const updates: { update_id: number; message: Record<string, unknown> }[] = [];
  let messageId = 0;
  const receiver = await startHttpReceiver(async (request) => {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.path);
    if (!match || request.method !== 'POST') {
      return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
    }
    const call: TelegramCall = {
      token: match[1]!,
      method: match[2]!,
      body: JSON.parse(request.body.toString('utf8')) as TelegramCall['body'],
    };
    const index = calls.push(call) - 1;
    const custom = await options.respond?.(call, index);
    if (custom) return custom;
    if (call.method === 'getUpdates') {
      // Asking past an update confirms it: it is not served again.
      const offset = Number(call.body.offset ?? 0);
      while (updates.length > 0 && updates[0]!.update_id < offset) updates.shift();
      return { status: 200, body: { ok: true, result: updates } };
    }
    return {
      status: 200,
      body: {
        ok: true,
        result: {
          message_id: ++messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(call.body.chat_id) || call.body.chat_id, type: 'private' },
          text: call.body.text,
        },
      },
    };
  });
  let updateId = 1000;
  return Object.assign(receiver, {
    apiUrl: receiver.url,
    calls,
    send(chat: { id: number; username?: string; type?: string }, text: string) {
      updates.push({
        update_id: ++updateId,
        message: {
          message_id: ++messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { type: 'private', ...chat },
          text,
        },
      });
    },
  });
}
