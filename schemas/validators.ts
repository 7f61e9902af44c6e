/**
 * Request-body validators, compiled once with ajv from the JSON Schemas beside this file
 * (`requests/`: API request bodies; `solver/`: what solver engines answer). A failed
 * validation names the offending field, e.g. `/sellAmount must match pattern …`.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type {
  AppDataObjectBody,
  OrderCancellationBody,
  OrderCancellationsBody,
  OrderCreationBody,
  OrderQuoteBody,
  OrderUidsBody,
  SubscriptionCreateBody as GeneratedSubscriptionCreateBody,
  SubscriptionRemoveBody,
  SubscriptionVerifyBody,
} from './request-bodies.generated.js';

export type {
  AppDataObjectBody,
  OrderCancellationBody,
  OrderCancellationsBody,
  OrderCreationBody,
  OrderQuoteBody,
  SubscriptionRemoveBody,
  SubscriptionVerifyBody,
} from './request-bodies.generated.js';

/** A JSON Schema beside this file, e.g. `schemaFile('order-creation')` (a request body's). */
export const schemaFile = (name: string, folder = 'requests'): object =>
  JSON.parse(readFileSync(new URL(`./${folder}/${name}.schema.json`, import.meta.url), 'utf8'));

const ajv = new Ajv({ allErrors: false, strict: true });
ajv.addSchema(schemaFile('definitions'));
/**
 * Solver answers are read as leniently as the reference driver reads them: conditional shapes
 * (`if` on a trade's or interaction's `kind`) and unions strict mode would refuse to compile.
 */
const lenientAjv = new Ajv({
  allErrors: false,
  strict: true,
  strictRequired: false,
  strictTypes: false,
  allowUnionTypes: true,
});

/**
 * POST /accounts/{account}/subscriptions, its channel as one shape per kind (the schema's
 * `if`/`then` on `kind`, which a generated type cannot say).
 */
export type SubscriptionCreateBody = Omit<GeneratedSubscriptionCreateBody, 'channel'> & {
  channel:
    | { kind: 'webhook'; url: string }
    | { kind: 'email'; address: string }
    | {
        kind: 'webpush';
        /** The browser's `PushSubscription.toJSON()`. */
        subscription: {
          endpoint: string;
          keys: { p256dh: string; auth: string };
          expirationTime?: number | null;
        };
      }
    | { kind: 'telegram'; chatId: string };
};

/** A uint256 as an engine may write it: decimal or 0x-hex string, or a JSON integer. */
type RawUint = string | number;

/**
 * A solver engine's answer as written (schemas/solver/solve-response.schema.json), declared by
 * hand: its trades and interactions are shapes chosen by `kind` (`if`/`then`), which a generated
 * type cannot say.
 */
export interface SolveAnswerBody {
  solutions?: RawSolution[];
  error?: { code: string; message?: string };
}

export interface RawSolution {
  id: number | string;
  prices: Record<string, RawUint>;
  trades: (
    | { kind: 'fulfillment'; order: string; executedAmount: RawUint; fee?: RawUint | null }
    | { kind: 'jit' }
  )[];
  preInteractions?: RawCall[];
  interactions?: RawInteraction[];
  postInteractions?: RawCall[];
  gas?: RawUint;
  flashloans?: Record<string, unknown> | null;
  wrappers?: unknown[] | null;
}

export interface RawCall {
  target: string;
  value: RawUint;
  callData: string | string[];
}

export type RawInteraction = { internalize?: boolean } & (
  | {
      kind: 'liquidity';
      id: string | number;
      inputToken: string;
      outputToken: string;
      inputAmount: RawUint;
      outputAmount: RawUint;
    }
  | {
      kind: 'custom';
      target: string;
      value: RawUint;
      callData: string;
      allowances?: { token: string; spender: string; amount?: RawUint; minAmount?: RawUint }[];
      inputs?: { token: string; amount: RawUint }[];
      outputs?: { token: string; amount: RawUint }[];
    }
);

export const validators = {
  orderCreation: ajv.compile<OrderCreationBody>(schemaFile('order-creation')),
  orderCancellations: ajv.compile<OrderCancellationsBody>(schemaFile('order-cancellations')),
  orderCancellation: ajv.compile<OrderCancellationBody>(schemaFile('order-cancellation')),
  appDataObject: ajv.compile<AppDataObjectBody>(schemaFile('app-data-object')),
  orderUids: ajv.compile<OrderUidsBody>(schemaFile('order-uids')),
  orderQuote: ajv.compile<OrderQuoteBody>(schemaFile('order-quote')),
  subscriptionCreate: ajv.compile<SubscriptionCreateBody>(schemaFile('subscription-create')),
  subscriptionRemove: ajv.compile<SubscriptionRemoveBody>(schemaFile('subscription-remove')),
  subscriptionVerify: ajv.compile<SubscriptionVerifyBody>(schemaFile('subscription-verify')),
  solveAnswer: lenientAjv.compile<SolveAnswerBody>(schemaFile('solve-response', 'solver')),
} as const;

/** One line naming the first problem: the JSON pointer of the field and what is wrong. */
export function describeSchemaError(validate: ValidateFunction): string {
  const error: ErrorObject | undefined = validate.errors?.[0];
  if (!error) return 'invalid request body';
  const missing = error.keyword === 'required' ? `/${String(error.params.missingProperty)}` : '';
  const field = `${error.instancePath}${missing}` || '(body)';
  if (missing) return `${field} is required`;
  // A key failing `propertyNames`: name the key, not just the object holding it.
  const key = error.propertyName === undefined ? '' : ` key ${JSON.stringify(error.propertyName)}`;
  return `${field}${key} ${error.message ?? 'is invalid'}`;
}
