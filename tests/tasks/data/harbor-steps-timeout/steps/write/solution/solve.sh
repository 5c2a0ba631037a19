#!/bin/bash
echo hello > /app/notes.txt
sleep 60  # past the step's 3 s agent deadline
