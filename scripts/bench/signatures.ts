/**
 * Signature benchmark: EIP-712 order hash + signer recovery per second on one core, for the
 * domain's fast path (precomputed type hashes, js-sha3 keccak, native secp256k1) and for
 * ethers v6 (`TypedDataEncoder.hash` + `recoverAddress`). DESIGN §9 measured ~9,600 and ~450.
 *
 *   node --import tsx scripts/bench/signatures.ts [seconds per path, default 3]
 */
import { TypedDataEncoder, Wallet, ZeroAddress, recoverAddress } from 'ethers';
import { performance } from 'node:perf_hooks';
import { domainSeparator, orderDigest } from '../../src/domain/eip712.js';
import type { Hex, OrderData } from '../../src/domain/events.js';
import { SETTLEMENT_CONTRACT } from '../../src/domain/networks.js';
import { recoverOrderSigner } from '../../src/domain/signatures.js';
import { ORDER_TYPES, domain } from '../../test/support/signing.js';

const seconds = Number(process.argv[2] ?? 3);
const ORDERS = 256;

const wallet = Wallet.createRandom();
const owner = wallet.address.toLowerCase();
const signed: { order: OrderData; signature: Hex }[] = [];
for (let i = 0; i < ORDERS; i++) {
  const order: OrderData = {
    sellToken: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    buyToken: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
    receiver: null,
    sellAmount: String(1_000_000 + i),
    buyAmount: '500000000000000000',
    validTo: 1_900_000_000 + i,
    appData: '0xb48d38f93eaa084033fc5970bf96e559c33c4cdc07d889ab00b4d63f9590739d',
    feeAmount: '0',
    kind: i % 2 ? 'buy' : 'sell',
    partiallyFillable: false,
    sellTokenBalance: 'erc20',
    buyTokenBalance: 'erc20',
  };
  const signature = wallet.signingKey.sign(
    TypedDataEncoder.hash(domain(1), ORDER_TYPES, { ...order, receiver: ZeroAddress }),
  ).serialized as Hex;
  signed.push({ order, signature });
}

/**
 * Runs `check` round-robin over the signed orders for `seconds` of wall time and returns checks
 * per CPU-second of this process: on a shared machine wall-clock rates mostly measure the
 * neighbours, CPU time measures the code. Both are printed.
 */
function measure(name: string, check: (order: OrderData, signature: Hex) => string | null): number {
  let n = 0;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    for (let k = 0; k < 64; k++, n++) {
      const { order, signature } = signed[n % ORDERS]!;
      if (check(order, signature)?.toLowerCase() !== owner)
        throw new Error(`${name}: wrong signer`);
    }
  }
  const wall = n / ((performance.now() - start) / 1000);
  const cpu = process.cpuUsage(cpuStart);
  const perCpuSecond = n / ((cpu.user + cpu.system) / 1e6);
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US').padStart(8);
  console.log(`${name.padEnd(44)} ${fmt(perCpuSecond)} /CPU-s ${fmt(wall)} /s wall`);
  return perCpuSecond;
}

const separator = domainSeparator(1, SETTLEMENT_CONTRACT);
const fast = measure('domain fast path (js-sha3 keccak + native secp)', (order, signature) =>
  recoverOrderSigner('eip712', orderDigest(order, separator), signature),
);
const slow = measure('ethers TypedDataEncoder + recoverAddress', (order, signature) =>
  recoverAddress(
    TypedDataEncoder.hash(domain(1), ORDER_TYPES, { ...order, receiver: ZeroAddress }),
    signature,
  ),
);
console.log(`speed-up ${(fast / slow).toFixed(1)}x (one core, hash + recover per order)`);
