// Names the binder reads and writes (upstream component-helpers/storage/volume and
// pkg/controller/volume/events), plus Stowage's own explanation of a Pending claim. The
// ones users may not set are defined with that rule, in domain/claim-ownership.
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BINDING_EXPLANATION,
  ANN_BOUND_BY_CONTROLLER,
  ANN_STORAGE_PROVISIONER,
} from '../../domain/claim-ownership';

/** On a claim: its binding has been completed once (value "yes"). */
export const annBindCompleted = ANN_BIND_COMPLETED;
/** On a volume or claim: the controller, not the user, wrote the binding (value "yes"). */
export const annBoundByController = ANN_BOUND_BY_CONTROLLER;
/** On a volume: the plugin that provisioned it. */
export const annDynamicallyProvisioned = 'pv.kubernetes.io/provisioned-by';
/** On a claim: the provisioner that should create its volume (and the beta twin). */
export const annStorageProvisioner = ANN_STORAGE_PROVISIONER;
export const annBetaStorageProvisioner = ANN_BETA_STORAGE_PROVISIONER;
/** On a claim: the node its consumer was scheduled to (WaitForFirstConsumer). */
export const annSelectedNode = 'volume.kubernetes.io/selected-node';
/** On a Pending claim: compact JSON {evaluatedAt, summary, candidates:[{name, reasons}]}. */
export const annBindingExplanation = ANN_BINDING_EXPLANATION;
/** A claim condition: status "False" while the claim cannot be bound, with why. */
export const conditionBindable = 'Bindable';

/** The source.component of the binder's Events, as upstream. */
export const binderComponent = 'persistentvolume-controller';

/** Upstream event reasons (pkg/controller/volume/events/event.go). */
export const reasons = {
  failedBinding: 'FailedBinding',
  volumeMismatch: 'VolumeMismatch',
  claimLost: 'ClaimLost',
  claimMisbound: 'ClaimMisbound',
  externalProvisioning: 'ExternalProvisioning',
  provisioningFailed: 'ProvisioningFailed',
  waitForFirstConsumer: 'WaitForFirstConsumer',
  volumeFailedRecycle: 'VolumeFailedRecycle',
  volumeFailedDelete: 'VolumeFailedDelete',
  volumeUnknownReclaimPolicy: 'VolumeUnknownReclaimPolicy',
} as const;

/** A StorageClass provisioner that never provisions (local volumes). */
export const noProvisioner = 'kubernetes.io/no-provisioner';
