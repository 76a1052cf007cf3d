import type { Tx } from '../../sqlite.ts';

export interface Product {
  productId: string;
  name: string;
  /** Minor units. */
  unitPrice: number;
  currency: string;
  stock: number;
}

export function findProduct(tx: Tx, productId: string): Product | undefined {
  const row = tx.statement('SELECT * FROM products WHERE product_id = ?').get(productId);
  if (!row) return undefined;
  return {
    productId: String(row['product_id']),
    name: String(row['name']),
    unitPrice: Number(row['unit_price']),
    currency: String(row['currency']),
    stock: Number(row['stock']),
  };
}

export function insertProduct(tx: Tx, p: Product): void {
  tx.statement('INSERT INTO products (product_id, name, unit_price, currency, stock) VALUES (?, ?, ?, ?, ?)').run(
    p.productId, p.name, p.unitPrice, p.currency, p.stock,
  );
}

/** Positive delta releases stock, negative reserves it; the CHECK keeps stock from going below zero. */
export function adjustStock(tx: Tx, productId: string, delta: number): void {
  tx.statement('UPDATE products SET stock = stock + ? WHERE product_id = ?').run(delta, productId);
}
