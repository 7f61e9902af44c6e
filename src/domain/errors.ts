/**
 * Every `errorType` batchbook answers with (reference §1.3, seed §7, and its own endpoints'), so
 * a typo in an error code is a compile error, and each has a status (src/http/error-status.ts).
 */
export const ERROR_TYPES = [
  // POST /orders: submission rules and signatures (reference §4.1)
  'ZeroAmount',
  'SameBuyAndSellToken',
  'InvalidNativeSellToken',
  'OrderExpired',
  'InsufficientValidTo',
  'ExcessiveValidTo',
  'InvalidValidFrom',
  'NonZeroFee',
  'UnsupportedOrderType',
  'UnsupportedBuyTokenDestination',
  'UnsupportedSellTokenSource',
  'UnsupportedToken',
  'Forbidden',
  'MissingFrom',
  'AppdataFromMismatch',
  'WrongOwner',
  'InvalidSignature',
  'InvalidEip1271Signature',
  'IncompatibleSigningScheme',
  'InvalidAppData',
  'AppDataHashMismatch',
  'DuplicatedOrder',
  'SellAmountOverflow',
  'BuyAmountOverflow',
  'InsufficientBalance',
  'InsufficientAllowance',
  'TransferSimulationFailed',
  'TooManyLimitOrders',
  'TooMuchGas',
  'OldOrderActivelyBidOn',
  'MetadataSerializationFailed',
  // quotes and price estimation
  'QuoteNotFound',
  'InvalidQuote',
  'QuoteNotVerified',
  'NoLiquidity',
  'SellAmountDoesNotCoverFee',
  'InsufficientLiquidity',
  'TradingOutsideAllowedWindow',
  'TokenTemporarilySuspended',
  'CustomSolverError',
  // cancellation, and replacement targets (reference §4.3)
  'OrderNotFound',
  'AlreadyCancelled',
  'OrderFullyExecuted',
  'OnChainOrder',
  // reads
  'NotFound',
  'LIMIT_OUT_OF_BOUNDS',
  'InvalidTradeFilter',
  'InvalidLimit',
  // PUT /app_data spells its invalid type differently (reference §9.3)
  'AppDataInvalid',
  'AppDataMismatch',
  // subscriptions and notifications
  'Unauthorized',
  'SubscriptionNotFound',
  'TooManySubscriptions',
  'InvalidVerificationCode',
  'VerificationExpired',
  'NotificationsDisabled',
  'ChannelNotConfigured',
  // operators' endpoints
  'AdminApiDisabled',
  // the web app and its live stream
  'WebAppNotBuilt',
  'TooManyStreams',
  // the request itself
  'InvalidJson',
  'InvalidBody',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'MethodNotAllowed',
  'NotImplemented',
  'RequestTimeout',
  'RequestHeaderFieldsTooLarge',
  'BadRequest',
  'TooManyConnections',
  // cross-cutting
  'InvalidParameter',
  'NetworkNotLive',
  'ChainUnavailable',
  'DatabaseUnavailable',
  'RateLimited',
  'InternalServerError',
] as const;

export type ErrorType = (typeof ERROR_TYPES)[number];

/** The error envelope (reference §0), minus the optional `data`. */
export interface OrderRejection {
  errorType: ErrorType;
  description: string;
}
