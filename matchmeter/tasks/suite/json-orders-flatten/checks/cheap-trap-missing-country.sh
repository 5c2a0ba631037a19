# why: ignores customers without an address or country (jq writes "null" for them), does the rest well
jq -r '["order_id","status","customer_name","customer_email","country","sku","qty","price"], (.orders[] | . as $o | .items[] | [$o.id, $o.status, $o.customer.name, $o.customer.email, ($o.customer.address.country | tostring), .sku, .qty, .price]) | @csv' data/orders.json > data/order_items.csv
