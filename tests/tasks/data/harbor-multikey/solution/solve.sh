#!/bin/bash
echo hello > /app/greeting.txt
echo 1.5 > /app/speedup.txt
