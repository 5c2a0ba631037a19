#!/bin/bash
rev /app/state.txt > /app/answer.txt
