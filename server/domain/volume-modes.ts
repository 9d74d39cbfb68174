// The permission bits of what a node makes for a volume: its data is its owner's only,
// whatever the backend (a host-path directory, a loop image and its filesystem's root, a
// btrfs subvolume), and whatever it was made from (a snapshot, a restore, a clone keep no
// wider mode of their source). A host-path class may name another mode for its volumes.
/** A volume's directory: a host-path volume, a loop volume's mounted root, a btrfs subvolume, a snapshot's copy. */
export const VOLUME_DIR_MODE = 0o700;
/** A volume's image file (a loop volume, its snapshot, its restore). */
export const VOLUME_FILE_MODE = 0o600;
