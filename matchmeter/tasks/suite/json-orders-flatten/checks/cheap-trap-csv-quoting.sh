# why: ignores CSV quoting (fields joined with "," as they are), does the rest well
jq -r '["order_id","status","customer_name","customer_email","country","sku","qty","price"], (.orders[] | . as $o | .items[] | [$o.id, $o.status, $o.customer.name, $o.customer.email, ($o.customer.address.country // ""), .sku, .qty, .price]) | map(tostring) | join(",")' data/orders.json > data/order_items.csv
