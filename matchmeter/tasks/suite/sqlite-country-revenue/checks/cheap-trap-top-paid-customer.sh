# why: ignores "highest paid revenue" (the best customer picked over all orders), does the rest well
python3 "$(dirname "$0")/sloppy_revenue.py" top-paid-customer
