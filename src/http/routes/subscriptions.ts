/**
 * An account's delivery channels, outside the `/{network}` prefix (accounts are the same on
 * every network):
 *
 * - `POST /accounts/{account}/subscriptions` body `{ channel, issuedAt?, signature? }` → 201
 *   `{ id, account, channel, addedAt }`, a webhook's channel carrying its freshly made `secret`
 *   (shown only here); the same channel again → 200 with the existing subscription, no secret.
 * - `GET /accounts/{account}/subscriptions` → 200, the active ones (no secrets, no push keys);
 *   signed through the `X-Signature` and `X-Issued-At` headers.
 * - `DELETE /accounts/{account}/subscriptions/{id}` → 200 `{ id, account, removedAt }`; the
 *   signature and issuedAt in an optional JSON body or in the headers.
 * - `GET /accounts/{account}/subscriptions/typed-data` → 200 `{ domain, types }`: what the
 *   requests above are signed with on this deployment (the domain's salt is its identity).
 * - `POST /accounts/{account}/subscriptions/{id}/verification` body `{ code }` → 200
 *   `{ id, account, verifiedAt }`: the code the verification e-mail carried.
 *
 * The first three are authorised by the `X-API-Key` header or the account's EIP-712 signature
 * (src/subscriptions/typed-data.ts has the typed data); a refusal is 401 `Unauthorized`. A
 * verification is authorised by its code alone: it proves the reader has the mailbox. Disabled
 * notifications are 503 `NotificationsDisabled`. Responses are never cached.
 */
import Router, { type RouterContext } from '@koa/router';
import type { Middleware } from 'koa';
import { validators } from '../../../schemas/validators.js';
import type { SubscriptionCredentials } from '../../commands/subscriptions.js';
import type { Hex } from '../../domain/events.js';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { jsonBody } from '../json-body.js';
import { addressParam } from '../params.js';
import { rateLimited } from '../rate-limit.js';
import { validated } from '../validate.js';

const BODY_LIMIT = 4 * 1024;
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;
const UNIX_SECONDS = /^[0-9]{1,15}$/;
const MAX_ID_LENGTH = 64;

/** Subscriptions and their credentials are an account's own: no cache keeps an answer. */
const noStore: Middleware = async (ctx, next) => {
  try {
    await next();
  } finally {
    ctx.set('Cache-Control', 'no-store');
  }
};

/** A JSON body when one is sent; none is fine (DELETE may sign through its headers). */
const optionalJsonBody = (limit: number): Middleware => {
  const parse = jsonBody(limit);
  return async (ctx, next) => {
    const length = Number(ctx.get('content-length') || 0);
    if (length > 0 || ctx.get('transfer-encoding') !== '') return parse(ctx, next);
    await next();
  };
};

/** The `{id}` of the path, bounded. */
function subscriptionId(ctx: RouterContext): string {
  const id = ctx.params.id!;
  if (id.length > MAX_ID_LENGTH) {
    throw new ApiError('InvalidParameter', 'the subscription id is too long');
  }
  return id;
}

function header(ctx: RouterContext, name: string): string | null {
  const value = ctx.get(name);
  return value === '' ? null : value;
}

/** The `X-API-Key` header and the signature, from the body when given there, else the headers. */
function credentials(
  ctx: RouterContext,
  body: { signature?: string; issuedAt?: number } = {},
): SubscriptionCredentials {
  let signature = body.signature ?? null;
  if (signature === null) {
    signature = header(ctx, 'x-signature');
    if (signature !== null && !SIGNATURE.test(signature)) {
      throw new ApiError('InvalidParameter', 'X-Signature must be 65 bytes as 0x-hex');
    }
  }
  let issuedAt = body.issuedAt ?? null;
  if (issuedAt === null) {
    const raw = header(ctx, 'x-issued-at');
    if (raw !== null && !UNIX_SECONDS.test(raw)) {
      throw new ApiError('InvalidParameter', 'X-Issued-At must be unix seconds');
    }
    issuedAt = raw === null ? null : Number(raw);
  }
  return {
    apiKey: header(ctx, 'x-api-key'),
    signature: signature === null ? null : (signature.toLowerCase() as Hex),
    issuedAt,
  };
}

export function subscriptionsRouter(deps: HttpDeps): Router {
  const router = new Router();
  router.use(noStore);
  const collection = '/accounts/:account/subscriptions';
  const member = `${collection}/:id`;
  const changes = rateLimited(deps, 'subscription changes');

  const additions = rateLimited(deps, 'new subscriptions');
  router.post(collection, changes, additions, jsonBody(BODY_LIMIT), async (ctx) => {
    const account = addressParam(ctx.params.account!, 'account');
    const body = validated(validators.subscriptionCreate, ctx.request.body);
    const result = await deps.commands.subscribe(account, {
      channel: body.channel,
      credentials: credentials(ctx, body),
    });
    await deps.readYourWrites('notices', result.position);
    ctx.status = result.created ? 201 : 200;
    ctx.body = result.subscription;
  });

  router.get(`${collection}/typed-data`, (ctx) => {
    addressParam(ctx.params.account!, 'account');
    ctx.body = deps.commands.subscriptionsTypedData();
  });

  // A code guessed at length is a code found: verifying spends the changes' budget too.
  router.post(`${member}/verification`, changes, jsonBody(BODY_LIMIT), async (ctx) => {
    const account = addressParam(ctx.params.account!, 'account');
    const body = validated(validators.subscriptionVerify, ctx.request.body);
    const { position, ...verified } = await deps.commands.verifyEmail(
      account,
      subscriptionId(ctx),
      body.code,
    );
    await deps.readYourWrites('notices', position);
    ctx.body = verified;
  });

  router.get(collection, async (ctx) => {
    const account = addressParam(ctx.params.account!, 'account');
    deps.commands.authoriseSubscriptionsRead(account, credentials(ctx));
    ctx.body = await deps.queries.subscriptions.active(account);
  });

  router.delete(member, changes, optionalJsonBody(BODY_LIMIT), async (ctx) => {
    const account = addressParam(ctx.params.account!, 'account');
    const id = subscriptionId(ctx);
    const body =
      ctx.request.body === undefined
        ? {}
        : validated(validators.subscriptionRemove, ctx.request.body);
    const { position, ...removed } = await deps.commands.unsubscribe(account, {
      id,
      credentials: credentials(ctx, body),
    });
    await deps.readYourWrites('notices', position);
    ctx.body = removed;
  });

  // These paths know their methods: any other is a 405, not the generic 404.
  for (const path of [collection, member, `${member}/verification`]) {
    router.all(path, () => {
      throw new ApiError('MethodNotAllowed', 'method not allowed on this path');
    });
  }
  return router;
}
