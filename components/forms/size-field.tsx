'use client';
// The one size control: an amount and a unit (binary first, decimal offered). A plain
// number is that many of the unit shown; a whole quantity typed or pasted ("10Gi",
// "1.5Ti", "500M") is read as written and the unit follows it. The exact quantity is the
// amount's tooltip.
import { NativeSelect, TextInput } from '@mantine/core';
import { useState, type CSSProperties, type ReactNode } from 'react';
import { BINARY_UNITS, DECIMAL_UNITS, isSizeUnit, quantityOfValue, readSizeText, type SizeValue } from '../format/size-value';

const UNIT_DATA = [
  { group: 'Binary (1024)', items: [...BINARY_UNITS] },
  { group: 'Decimal (1000)', items: [...DECIMAL_UNITS] },
];

export function SizeField({
  label,
  value,
  onChange,
  error,
  description,
  required,
  disabled,
  unitLabel = 'Unit',
  hideLabel,
  testId,
  w = 170,
  style,
  onEnter,
}: {
  label: string;
  value: SizeValue;
  onChange: (v: SizeValue) => void;
  error?: ReactNode;
  description?: ReactNode;
  required?: boolean;
  disabled?: boolean;
  /** The unit picker's accessible name. */
  unitLabel?: string;
  /** The label as the accessible name only (rows of a table-like form). */
  hideLabel?: boolean;
  testId?: string;
  /** The whole control's width (the unit sits inside it). */
  w?: number | string;
  style?: CSSProperties;
  onEnter?: () => void;
}) {
  // The text as typed while the amount has focus ("10G" on the way to "10Gi"); the value's amount otherwise.
  const [typed, setTyped] = useState<string | undefined>(undefined);
  const quantity = quantityOfValue(value);
  const change = (text: string) => {
    setTyped(text);
    onChange(readSizeText(text, value.unit) ?? { size: text, unit: value.unit });
  };
  const unit = (
    <NativeSelect
      aria-label={unitLabel}
      data={UNIT_DATA}
      value={value.unit}
      disabled={disabled}
      onChange={(e) => {
        const u = e.currentTarget.value;
        if (!isSizeUnit(u)) return;
        setTyped(undefined);
        onChange({ size: value.size, unit: u });
      }}
      data-testid={testId ? `${testId}-unit` : undefined}
      rightSectionWidth={22}
      styles={{ input: { fontWeight: 500, borderTopLeftRadius: 0, borderBottomLeftRadius: 0, width: 74, marginRight: -2, paddingLeft: 8 } }}
    />
  );
  return (
    <TextInput
      label={hideLabel ? undefined : label}
      aria-label={hideLabel ? label : undefined}
      description={description}
      w={w}
      maw="100%"
      style={style}
      inputMode="decimal"
      autoComplete="off"
      required={required}
      disabled={disabled}
      value={typed ?? value.size}
      title={quantity ? `Asks for ${quantity}` : undefined}
      onChange={(e) => change(e.currentTarget.value)}
      onBlur={() => setTyped(undefined)}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && onEnter) {
          e.preventDefault();
          onEnter();
        }
      }}
      rightSection={unit}
      rightSectionWidth={74}
      rightSectionPointerEvents="all"
      error={error}
      data-testid={testId}
      data-quantity={quantity}
    />
  );
}
