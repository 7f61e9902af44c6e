/**
 * The chain's facts, as the indexer records them from logs (schemas/events/); a reorg can take
 * each back.
 */
import type {
  ChainCoordinates,
  ChainFactRevertedV2 as ChainFactRevertedSchema,
  EthFlowOrderPlacedV1,
  EthFlowOrderRefundedV1,
  OrderCancelledV1,
  PreSignatureSetV1,
  SettlementObservedV1,
  TradeSettledV1,
} from '../../../schemas/event-payloads.generated.js';

export type {
  ChainCoordinates,
  EthFlowOrderPlacedV1,
  EthFlowOrderRefundedV1,
  PreSignatureSetV1,
  SettlementObservedV1,
  TradeSettledV1,
} from '../../../schemas/event-payloads.generated.js';

/**
 * Why an order placed on chain cannot trade, in the reference's words (`onchainOrderData.
 * placementError`): `invalidOrderData` for a placement that is not the eth-flow contract's own
 * (an owner other than the contract, an order it does not hold, one it could not have placed),
 * `nonZeroFee` for a signed fee (orders pay no fee up front). The others are the reference's
 * quote checks, kept for its vocabulary.
 */
export type PlacementError = NonNullable<EthFlowOrderPlacedV1['placementError']>;

/**
 * The chain facts the indexer records; a reorg can take any of them back. A cancellation from
 * the chain carries its coordinates (the schema's `if`/`then`, which a generated type cannot say).
 */
export type ChainFact =
  | { type: 'TradeSettled'; data: TradeSettledV1 }
  | { type: 'OrderCancelled'; data: OrderCancelledV1 & { chain: ChainCoordinates } }
  | { type: 'PreSignatureSet'; data: PreSignatureSetV1 }
  | { type: 'SettlementObserved'; data: SettlementObservedV1 }
  | { type: 'EthFlowOrderPlaced'; data: EthFlowOrderPlacedV1 }
  | { type: 'EthFlowOrderRefunded'; data: EthFlowOrderRefundedV1 };

export type ChainFactRevertedV2 = Omit<ChainFactRevertedSchema, 'reverted'> & {
  reverted: ChainFact;
};
