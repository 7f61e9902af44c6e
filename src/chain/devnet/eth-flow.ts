/**
 * The devnet's CoWSwapEthFlow at the address the official SDK sends eth-flow orders to on
 * mainnet, with this chain's settlement contract, WETH and EIP-712 domain as its immutables
 * (./canonical-code.ts). Its constructor's approval of the vault relayer for WETH was made from
 * wherever the creation code ran, so it is made again from the contract's own address.
 */
import { Contract, Interface, MaxUint256, type JsonRpcProvider } from 'ethers';
import type { Address } from '../../domain/events.js';
import { ETH_FLOW_CONTRACT } from '../../domain/networks.js';
import { ethFlowArtifact, weth9Artifact } from './artifacts.js';
import { placeRuntimeCode, sendAs } from './canonical-code.js';

const WETH9 = new Interface(weth9Artifact().abi);

export async function placeEthFlow(
  provider: JsonRpcProvider,
  settlement: Address,
  weth: Address,
  vaultRelayer: Address,
): Promise<Address> {
  const artifact = ethFlowArtifact();
  await placeRuntimeCode(provider, artifact, [settlement, weth], ETH_FLOW_CONTRACT);
  const allowance: bigint = await new Contract(weth, WETH9, provider).getFunction('allowance')(
    ETH_FLOW_CONTRACT,
    vaultRelayer,
  );
  if (allowance !== MaxUint256) {
    const data = WETH9.encodeFunctionData('approve', [vaultRelayer, MaxUint256]);
    await sendAs(provider, { from: ETH_FLOW_CONTRACT, to: weth, data });
  }
  const ethFlow = new Contract(ETH_FLOW_CONTRACT, artifact.abi, provider);
  const [wiredSettlement, wiredWeth] = (
    await Promise.all([
      ethFlow.getFunction('cowSwapSettlement')(),
      ethFlow.getFunction('wrappedNativeToken')(),
    ])
  ).map((a: string) => a.toLowerCase());
  if (wiredSettlement !== settlement || wiredWeth !== weth)
    throw new Error(
      `CoWSwapEthFlow at ${ETH_FLOW_CONTRACT} serves ${wiredSettlement} and ${wiredWeth}`,
    );
  return ETH_FLOW_CONTRACT;
}
