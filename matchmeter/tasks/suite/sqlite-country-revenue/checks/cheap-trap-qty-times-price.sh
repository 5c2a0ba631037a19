# why: ignores "quantity × unit price" (unit prices summed, quantities dropped), does the rest well
python3 "$(dirname "$0")/sloppy_revenue.py" qty-times-price
