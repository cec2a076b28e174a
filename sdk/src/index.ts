/**
 * The package's entry (`@ferry/client`, sdk/package.json `exports`): the one file that re-exports, so the modules
 * behind it import each other directly and none has to import the entry back (no import circle). See docs/sdk.md.
 */
export {
  type CallOptions,
  createFerryClient,
  type FerryClient,
  type FerryClientOptions,
  type PostOptions,
} from './ferry-client.js';
export { type ClientErrorCode, FerryApiError, type FerryErrorCode, isFerryApiError } from './ferry-error.js';
export {
  erc7683Abi,
  type FerryOrder,
  ferryFillAbi,
  NotFillableError,
  ORDER_DATA_TYPE,
  onchainOrder,
  type PreparedCall,
  prepareFill,
  proveOptions,
  signedOrder,
} from './filling.js';
export type { components, paths } from './openapi-types.js';
export { type SignInOptions, signInWithEthereum } from './sign-in-with-ethereum.js';
export { type Signer, type SignPermitOptions, signPermit, signQuote } from './signing.js';
export { type EventSubscription, type SubscribeEventsOptions, subscribeEvents } from './sse.js';
export type * from './types.js';
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './webhook-verify.js';
export {
  subscribeWs,
  type WsStatus,
  type WsSubscribeOptions,
  type WsSubscription,
} from './ws.js';
