/**
 * The indexer reads the settlement contract's logs straight from their ABI words; here every
 * followed event, encoded by ethers from the contract's own ABI, must read back as its fact.
 */
import { expect } from 'chai';
import { settlementInterface } from '../../../src/chain/settlement-call.js';
import { factOf, SETTLEMENT_TOPICS, type RawLog } from '../../../src/chain/settlement-logs.js';
import { networkByName } from '../../../src/domain/networks.js';

const devnet = networkByName('devnet')!;
const OWNER = `0x${'ab'.repeat(20)}`;
const UID = `0x${'cd'.repeat(56)}`;
const BLOCK_HASH = `0x${'01'.repeat(32)}`;
const TX_HASH = `0x${'02'.repeat(32)}`;

/** The log as `eth_getLogs` would return it, encoded by ethers from the contract's ABI. */
function log(event: string, values: unknown[], address = devnet.settlementContract): RawLog {
  const { topics, data } = settlementInterface.encodeEventLog(event, values);
  return {
    transactionHash: TX_HASH,
    blockHash: BLOCK_HASH,
    blockNumber: '0x7',
    address,
    data,
    topics,
    logIndex: '0x3',
  };
}

describe('settlement logs', () => {
  const at = 1_700_000_000;
  const chain = {
    chainId: 31337,
    blockNumber: 7,
    blockHash: BLOCK_HASH,
    logIndex: 3,
    txHash: TX_HASH,
  };

  it('follows exactly the four events the contract emits for orders', () => {
    const names = ['Trade', 'Settlement', 'OrderInvalidated', 'PreSignature'];
    const expected = names.map((n) => settlementInterface.getEvent(n)!.topicHash);
    expect(SETTLEMENT_TOPICS).to.deep.equal(expected);
  });

  it('reads a Trade as TradeSettled, amounts as decimal strings', () => {
    const sellToken = `0x${'11'.repeat(20)}`;
    const buyToken = `0x${'22'.repeat(20)}`;
    const values = [OWNER, sellToken, buyToken, 10n ** 30n + 1n, 5n, 1n, UID];
    expect(factOf(devnet, log('Trade', values), at)).to.deep.equal({
      type: 'TradeSettled',
      data: {
        network: 'devnet',
        uid: UID,
        owner: OWNER,
        auctionId: null,
        sellToken,
        buyToken,
        sellAmount: '1000000000000000000000000000001',
        buyAmount: '5',
        feeAmount: '1',
        settledAt: '2023-11-14T22:13:20.000Z',
        chain,
      },
    });
  });

  it('reads Settlement, OrderInvalidated and PreSignature', () => {
    expect(factOf(devnet, log('Settlement', [OWNER]), at)?.data).to.include({ solver: OWNER });
    expect(factOf(devnet, log('OrderInvalidated', [OWNER, UID]), at)).to.deep.include({
      type: 'OrderCancelled',
      data: {
        network: 'devnet',
        uid: UID,
        source: 'chain',
        reason: 'invalidateOrder',
        cancelledAt: '2023-11-14T22:13:20.000Z',
        by: OWNER,
        chain,
      },
    });
    for (const signed of [true, false]) {
      const fact = factOf(devnet, log('PreSignature', [OWNER, UID, signed]), at);
      expect(fact?.data).to.deep.include({ uid: UID, owner: OWNER, signed });
    }
  });

  it('ignores logs of other contracts and events', () => {
    const elsewhere = log('Settlement', [OWNER], `0x${'99'.repeat(20)}`);
    expect(factOf(devnet, elsewhere, at)).to.equal(null);
    expect(factOf(devnet, log('Interaction', [OWNER, 0n, '0x12345678']), at)).to.equal(null);
  });
});
