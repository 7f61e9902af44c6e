/**
 * No client mistake ever gets a 500, and a rejected request writes nothing: random JSON and
 * random mutations of a valid signed order, thrown at every write endpoint.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { http, startTestService, type TestService } from '../support/service.js';
import { sharedTestChain } from '../support/chain.js';
import { fundedWallet } from '../support/owners.js';
import { CHAIN_ID, EMPTY_APP_DATA_HASH, signOrder } from '../support/signing.js';

describe('property: client mistakes never get a 500 and never write', function () {
  this.timeout(120_000);
  let service: TestService;
  let template: Record<string, unknown>;
  let templateUid: string;
  let quoteTemplate: Record<string, unknown>;

  before(async () => {
    const { deployment, provider } = await sharedTestChain();
    // What earlier suites settled on the shared chain is no request's writing: the service
    // indexes the chain from here on.
    const head = await provider.getBlockNumber();
    service = await startTestService({ env: { DEVNET_START_BLOCK: String(head) } });
    const signed = await signOrder(await fundedWallet(), CHAIN_ID.devnet);
    template = signed.body;
    templateUid = signed.uid;
    quoteTemplate = {
      sellToken: deployment.weth.address,
      buyToken: deployment.tokens[0]!.address,
      from: signed.owner,
      kind: 'sell',
      sellAmountBeforeFee: '1000000000000000000',
    };
  });
  after(() => service.stop());

  const writtenStreams = async () =>
    new Set((await service.ledger.readAll(null, 100_000)).map((e) => e.stream));

  const hostileValue = fc.oneof(
    fc.jsonValue(),
    fc.string(),
    fc.constantFrom('0x', '0X12', '-1', '1e3', ' 1', '0x' + 'f'.repeat(65), "'; DROP TABLE x;--"),
    fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map(String),
    fc.integer().map((n) => n * 1e9),
  );

  const orderFields = [
    'sellToken',
    'buyToken',
    'receiver',
    'sellAmount',
    'buyAmount',
    'validTo',
    'appData',
    'appDataHash',
    'feeAmount',
    'kind',
    'partiallyFillable',
    'sellTokenBalance',
    'buyTokenBalance',
    'signingScheme',
    'signature',
    'from',
    'quoteId',
    'extra',
  ];

  const quoteFields = [
    'sellToken',
    'buyToken',
    'from',
    'kind',
    'sellAmountBeforeFee',
    'sellAmountAfterFee',
    'buyAmountAfterFee',
    'validTo',
    'validFor',
    'appData',
    'signingScheme',
    'onchainOrder',
    'priceQuality',
    'extra',
  ];

  /** A valid body with one field replaced, removed, or one added. */
  const mutated = (fields: string[], valid: () => Record<string, unknown>) =>
    fc
      .tuple(fc.constantFrom(...fields), fc.oneof(hostileValue, fc.constant(undefined)))
      .map(([key, value]) => {
        const body: Record<string, unknown> = { ...valid() };
        if (value === undefined) delete body[key];
        else body[key] = value;
        return body;
      });
  const mutatedOrder = mutated(orderFields, () => template);
  const mutatedQuote = mutated(quoteFields, () => quoteTemplate);

  const writes: [string, string][] = [
    ['POST', '/api/v1/orders'],
    ['DELETE', '/api/v1/orders'],
    ['POST', '/api/v1/orders/by_uids'],
    ['PUT', '/api/v1/app_data'],
    ['DELETE', `/api/v1/orders/0x${'12'.repeat(56)}`],
    ['POST', '/api/v1/quote'],
  ];

  /** No Content-Encoding, or one a server may decode (on a body not encoded so), or another. */
  const contentEncoding = fc.option(fc.constantFrom('identity', 'gzip', 'deflate', 'br', 'xyz'));

  it('answers every malformed body with a 4xx JSON error and leaves the ledger as it was', async () => {
    // Only the template's own signature could ever be accepted (with its inline app data "{}"):
    // nothing else may write anything (quotes are kept outside the ledger). The deployment's
    // identity is recorded at the start.
    const allowed = [
      'deployment',
      `order-devnet-${templateUid}`,
      `appdata-devnet-${EMPTY_APP_DATA_HASH}`,
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...writes),
        fc.oneof(fc.jsonValue(), mutatedOrder, mutatedQuote),
        contentEncoding,
        async ([method, path], body, encoding) => {
          const response = await http<{ errorType?: string }>(
            method,
            `${service.devnet}${path}`,
            JSON.stringify(body) ?? 'null',
            encoding === null ? {} : { 'content-encoding': encoding },
          );
          expect(response.status, `${method} ${path} ${response.text}`).to.be.below(500);
          if (response.status >= 400) expect(response.body.errorType).to.be.a('string');
        },
      ),
      { numRuns: 200 },
    );
    expect([...(await writtenStreams())].filter((s) => !allowed.includes(s))).to.deep.equal([]);
  });
});
